import { ByteSize, Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"

/** The largest request body the service reads (CONTRACT §2: 413 beyond it). */
export const MAX_BODY = ByteSize.kibibytes(256)

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true })
// A NUL, raw or as the JSON escape \u0000 (any case). PostgreSQL text cannot hold it, so it would
// otherwise surface as a database error (a 500) deep inside a use case.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching NUL is the point of this check
const NUL = /\u0000|\\u0000/i

const isWebhook = (url: string) =>
  url
    .toLowerCase()
    .replace(/\/{2,}/g, "/")
    .includes("/v1/webhook/")

// A plain 400 carrying the message and issues; the response middleware wraps it in the envelope.
const refuse = (message: string, issue: string) =>
  HttpServerResponse.jsonUnsafe({ message, errors: [{ path: "", message: issue }] }, { status: 400 })

const hasBody = (method: string) => method === "POST" || method === "PUT" || method === "PATCH"

/**
 * Refuses, before any decoding, JSON bodies no field may legitimately carry: invalid UTF-8 (which
 * the JSON reader would silently turn into U+FFFD and store) and NUL characters. The webhook is left
 * alone: its signature must be checked over the exact bytes first, and its own reader applies the
 * same rules after that, dead-lettering what it refuses.
 */
export const guardBody = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!hasBody(request.method) || isWebhook(request.url)) return yield* app
    // Cached by the request: the API's JSON decoding reads these same bytes again. The limit is set
    // here too, because this runs before the routes (where MaxBodySize is provided) are entered.
    const bytes = yield* Effect.provideService(request.arrayBuffer, HttpServerRequest.MaxBodySize, MAX_BODY)
    let text: string
    try {
      text = fatalUtf8.decode(bytes)
    } catch {
      return refuse("Request body is not valid UTF-8", "not valid UTF-8")
    }
    if (NUL.test(text)) {
      return refuse("Request body contains a NUL character", "strings must not contain NUL characters")
    }
    return yield* app
  })
