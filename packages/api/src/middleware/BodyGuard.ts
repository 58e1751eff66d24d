import { ByteSize } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { BadRequest } from "../ApiErrors.ts"

/** The largest request body the service reads (CONTRACT §2: 413 beyond it). */
export const MAX_BODY = ByteSize.kibibytes(256)

/**
 * Refuses, before authentication and before any decoding, JSON bodies no field may legitimately
 * carry: invalid UTF-8, NUL characters, and lone surrogates written as JSON escapes (a 400). An
 * endpoint annotated `ReadsRawBody` (RoutePolicy.ts) applies the same rules itself.
 */
export class BodyGuard extends HttpApiMiddleware.Service<BodyGuard>()("@payments-gaming/api/BodyGuard", {
  error: BadRequest
}) {}
