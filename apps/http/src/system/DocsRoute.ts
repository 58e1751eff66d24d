import { Effect, Scope } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiScalar } from "effect/http-api"
import { Api } from "../Api.ts"
import { DOCS_PATH } from "../Paths.ts"

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
 * instances ever serve. Its router is built once, in the server's scope, and then answers alone.
 */
export const layer = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const docs = yield* Effect.cached(
      HttpRouter.toHttpEffect(HttpApiScalar.layer(Api, { path: DOCS_PATH, scalar: SCALAR })).pipe(Scope.provide(scope))
    )
    yield* router.add("GET", DOCS_PATH, Effect.flatten(docs))
  })
)
