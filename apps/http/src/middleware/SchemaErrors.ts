import { badRequest } from "@payments-gaming/api/ApiErrors"
import type { FieldIssue } from "@payments-gaming/api/Envelope"
import { SchemaErrors } from "@payments-gaming/api/middleware/SchemaErrors"
import { Effect, SchemaIssue } from "effect"
import { HttpApiMiddleware } from "effect/http-api"

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
