import { HttpApiMiddleware } from "effect/http-api"
import { BadRequest } from "../ApiErrors.ts"

/** Decode failures (path, query, headers, body) answered as a 400 envelope listing every issue. */
export class SchemaErrors extends HttpApiMiddleware.Service<SchemaErrors>()("@payments-gaming/api/SchemaErrors", {
  error: BadRequest
}) {}
