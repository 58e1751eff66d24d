import { badRequest } from "@payments-gaming/api/ApiErrors"
import { BodyGuard } from "@payments-gaming/api/middleware/BodyGuard"
import { policyOf, ReadsRawBody } from "@payments-gaming/api/RoutePolicy"
import { Effect, Layer } from "effect"
import { HttpMethod, HttpServerRequest } from "effect/http"

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true })
// A NUL, raw or as the JSON escape \u0000 (any case; not when its backslash is itself escaped, as in
// the text `\\u0000`). PostgreSQL text cannot hold it, so it would otherwise surface as a database
// error (a 500) deep inside a use case.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching NUL is the point of this check
const NUL = /\u0000|(?<!\\)(?:\\\\)*\\u0000/i

// A JSON escape of a surrogate (U+D800 to U+DFFF), the only way a body that is valid UTF-8 can
// carry a lone one. Bodies without it (nearly all) are not parsed here.
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/

/**
 * Whether every string of the JSON `text`, keys included, is well-formed UTF-16. A lone surrogate
 * would be stored as U+FFFD, so what was stored would not be what was sent (issue 34). Text that is
 * not JSON passes: the payload's decoder answers it.
 */
const wellFormedJson = (text: string): boolean => {
  if (!SURROGATE_ESCAPE.test(text)) return true
  let wellFormed = true
  try {
    JSON.parse(text, (key, value) => {
      if (!key.isWellFormed() || (typeof value === "string" && !value.isWellFormed())) wellFormed = false
      return value
    })
  } catch {
    return true
  }
  return wellFormed
}

/**
 * Refuses, before authentication and before any decoding, JSON bodies no field may legitimately
 * carry: invalid UTF-8 (which the JSON reader would silently turn into U+FFFD and store), NUL
 * characters, and lone surrogates written as JSON escapes (which PostgreSQL would store as U+FFFD). Applied to every endpoint of the API (Api.ts); whether it guards one is decided from
 * the route it matched, never from the URL text: endpoints without a payload read no body, and an
 * endpoint annotated `ReadsRawBody` (the webhook, whose signature must be checked over the exact
 * bytes first) applies the same rules itself, dead-lettering what it refuses.
 */
export const layer = Layer.succeed(BodyGuard, (effect, route) => {
  // Decided once per route, when HttpApiBuilder builds it.
  if (route.endpoint.payload.size === 0 || policyOf(route, ReadsRawBody)) return effect
  return Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!HttpMethod.hasBody(request.method)) return yield* effect
    // Cached by the request: the payload decoder reads these same bytes again. A body over
    // MaxBodySize fails here with a respondable error, answered 413 by the response middleware.
    const bytes = yield* Effect.orDie(request.arrayBuffer)
    let text: string
    try {
      text = fatalUtf8.decode(bytes)
    } catch {
      return yield* badRequest("Request body is not valid UTF-8", [{ path: "", message: "not valid UTF-8" }])
    }
    if (NUL.test(text)) {
      return yield* badRequest("Request body contains a NUL character", [
        { path: "", message: "strings must not contain NUL characters" }
      ])
    }
    if (!wellFormedJson(text)) {
      return yield* badRequest("Request body contains a lone surrogate", [
        { path: "", message: "strings must be well-formed UTF-16 (no lone surrogate \\uD800-\\uDFFF)" }
      ])
    }
    return yield* effect
  })
})
