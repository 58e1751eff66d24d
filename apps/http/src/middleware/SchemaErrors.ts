import { Effect, SchemaIssue } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { BadRequest, badRequest } from "../ApiErrors.ts"
import type { FieldIssue } from "../Envelope.ts"

/** Turns decode failures (path, query, headers, body) into a 400 envelope listing every issue. */
export class SchemaErrors extends HttpApiMiddleware.Service<SchemaErrors>()("@payments-gaming/http/SchemaErrors", {
  error: BadRequest
}) {}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const pathOf = (path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined) =>
  (path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment)).join(".")

export const issuesOf = (issue: SchemaIssue.Issue): Array<FieldIssue> =>
  formatter(issue).issues.map((entry) => ({ path: pathOf(entry.path), message: entry.message }))

const messages = {
  Params: "Invalid path parameter",
  Query: "Invalid query parameter",
  Headers: "Invalid request header",
  Payload: "Invalid request body",
  Body: "Invalid request body"
} as const

export const layer = HttpApiMiddleware.layerSchemaErrorTransform(SchemaErrors, (error) =>
  error.kind === "ResponseHeaders"
    ? Effect.die(error)
    : Effect.fail(badRequest(messages[error.kind], issuesOf(error.cause.issue)))
)
