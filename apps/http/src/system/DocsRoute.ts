import { createHash } from "node:crypto"
import { promisify } from "node:util"
import { brotliCompress, constants, gzip } from "node:zlib"
import { Api } from "@payments-gaming/api/Api"
import { DOCS_PATH } from "@payments-gaming/api/Paths"
import { Effect, Scope } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiScalar } from "effect/http-api"
import { withRoute } from "../middleware/MatchedRoute.ts"
import { RateLimit } from "../middleware/RateLimit.ts"

const brotli = promisify(brotliCompress)
const gzipped = promisify(gzip)

/**
 * The page changes only with a deployment: a browser keeps it an hour, then asks again with its
 * ETag and gets a 304 while it is the same page.
 */
export const DOCS_CACHE_CONTROL = "public, max-age=3600"

type Encoding = "br" | "gzip" | "identity"

/**
 * The encoding to answer `accept` (an `Accept-Encoding` header) with: brotli, else gzip, else none.
 * A coding listed with `q=0` is refused by the client, so it is not used.
 */
export const encodingFor = (accept: string | undefined): Encoding => {
  const accepted = new Set<string>()
  for (const part of (accept ?? "").split(",")) {
    const [name, ...parameters] = part.split(";").map((piece) => piece.trim().toLowerCase())
    const refused = parameters.some((parameter) => /^q=0(?:\.0{0,3})?$/.test(parameter))
    if (name !== undefined && name !== "" && !refused) accepted.add(name)
  }
  if (accepted.has("br")) return "br"
  if (accepted.has("gzip") || accepted.has("*")) return "gzip"
  return "identity"
}

/** Whether an `If-None-Match` header names `etag` (weak comparison, as RFC 9110 asks for it). */
const matches = (ifNoneMatch: string | undefined, etag: string) =>
  (ifNoneMatch ?? "").split(",").some((tag) => {
    const trimmed = tag.trim()
    return trimmed === "*" || trimmed.replace(/^W\//, "") === etag.replace(/^W\//, "")
  })

/**
 * Scalar's settings. Its default fonts come from a font CDN: the page is to need nothing but this
 * service (offline, behind a firewall, under a strict CSP), so it uses the system's fonts instead.
 * "Test Request" offers the bearer token first: every endpoint but the probes and the webhook needs it.
 */
const SCALAR: HttpApiScalar.ScalarConfig = {
  withDefaultFonts: false,
  authentication: { preferredSecurityScheme: "bearer" }
}

/**
 * The Scalar reference at /docs, served by this process, built on its first request.
 * `HttpApiScalar.layer` loads Scalar's 3 MB browser bundle when it is built: built with the other
 * routes, that cost every start about 50 ms of CPU and 15 MiB of resident memory for a page few
 * instances ever serve. Its page is built once, in the server's scope, and then served from memory.
 *
 * The page is 3.2 MB of HTML and script (issue 34: 60 requests moved 196 MB and slowed the API), so
 * it is compressed (brotli or gzip, whichever the client accepts: 780 and 870 KB, a quarter of it;
 * each made once, on the first request that asks for it, off the event loop), cached by browsers (`Cache-Control`,
 * a weak `ETag` for every encoding, 304 on `If-None-Match`), and counted by the per-address rate
 * limit like any client route (MatchedRoute.ts).
 */
export const layer = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const route = withRoute({ label: DOCS_PATH, envelope: "epoch", rateLimit: "client" }, yield* RateLimit)
    const scope = yield* Effect.scope
    const scalar = yield* Effect.cached(
      HttpRouter.toHttpEffect(HttpApiScalar.layer(Api, { path: DOCS_PATH, scalar: SCALAR })).pipe(Scope.provide(scope))
    )
    // The page's bytes, from Scalar's own answer; then each encoding of them, once.
    const page = yield* Effect.cached(
      Effect.gen(function* () {
        const response = yield* Effect.flatten(scalar)
        const body = response.body
        if (body._tag !== "Uint8Array") return yield* Effect.die(new Error(`/docs answered a ${body._tag} body`))
        const etag = `W/"${createHash("sha256").update(body.body).digest("base64url").slice(0, 27)}"`
        return { bytes: body.body, etag }
      })
    )
    const compressed = {
      br: yield* Effect.cached(
        Effect.flatMap(page, ({ bytes }) =>
          Effect.promise(() =>
            // Quality 6: 782 KB in 0.3 s, where 9 saves 2 % more in 0.7 s and 11 takes many seconds.
            brotli(bytes, {
              params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length }
            })
          )
        )
      ),
      gzip: yield* Effect.cached(Effect.flatMap(page, ({ bytes }) => Effect.promise(() => gzipped(bytes))))
    }
    const serve = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { bytes, etag } = yield* page
      const headers = { etag, "cache-control": DOCS_CACHE_CONTROL, vary: "Accept-Encoding" }
      if (matches(request.headers["if-none-match"], etag)) return HttpServerResponse.empty({ status: 304, headers })
      const encoding = encodingFor(request.headers["accept-encoding"])
      const body = encoding === "identity" ? bytes : new Uint8Array(yield* compressed[encoding])
      return HttpServerResponse.uint8Array(body, {
        contentType: "text/html; charset=utf-8",
        headers: encoding === "identity" ? headers : { ...headers, "content-encoding": encoding }
      })
    })
    yield* router.add("GET", DOCS_PATH, route(serve))
  })
)
