import { Effect, Scope } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiScalar } from "effect/http-api"
import { Api } from "../Api.ts"
import { DOCS_PATH } from "../Paths.ts"

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
      HttpRouter.toHttpEffect(HttpApiScalar.layer(Api, { path: DOCS_PATH })).pipe(Scope.provide(scope))
    )
    yield* router.add("GET", DOCS_PATH, Effect.flatten(docs))
  })
)
