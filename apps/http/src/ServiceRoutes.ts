import { Api } from "@payments-gaming/api/Api"
import { METRICS_PATH, OPENAPI_PATH } from "@payments-gaming/api/Paths"
import { EnvelopeStyle, groupPolicyOf, RateLimited, Space } from "@payments-gaming/api/RoutePolicy"
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { HttpApi, OpenApi } from "effect/http-api"
import { PrometheusMetrics } from "effect/observability"
import { type RouteFacts, UNMATCHED, withRoute } from "./middleware/MatchedRoute.ts"
import { RateLimit } from "./middleware/RateLimit.ts"

/** A group's `Space` (RoutePolicy.ts): the path prefix it answers for, and its facts there. */
interface GroupSpace {
  readonly prefix: string
  readonly facts: RouteFacts
}

/** The spaces the API's groups declare, read once from their annotations. */
export const SPACES: ReadonlyArray<GroupSpace> = (() => {
  const spaces: Array<GroupSpace> = []
  HttpApi.reflect(Api, {
    onGroup: ({ group }) => {
      const prefix = groupPolicyOf(group, Space)
      if (prefix === undefined) return
      spaces.push({
        prefix,
        facts: {
          label: UNMATCHED.label,
          envelope: groupPolicyOf(group, EnvelopeStyle),
          rateLimit: groupPolicyOf(group, RateLimited)
        }
      })
    },
    onEndpoint: () => {}
  })
  return spaces
})()

/**
 * The envelope of a request Node's parser refused, which reached no router (NodeServer.ts): its
 * group's when its path falls under a `Space` (compared as the router compares: case folded,
 * slashes collapsed), else epoch.
 */
export const envelopeOfUnrouted = (url: string): EnvelopeStyle => {
  const path = (url.split("?")[0] ?? "").replace(/\/{2,}/g, "/").toLowerCase()
  return SPACES.find(({ prefix }) => path.startsWith(prefix.toLowerCase()))?.facts.envelope ?? UNMATCHED.envelope
}

/**
 * The routes served beside the API (the reference at /docs is DocsRoute.ts), each with its policies
 * as the API's routes have theirs (MatchedRoute.ts):
 * - `/metrics` and `/openapi.json`, operational: never rate limited, so tooling keeps working while
 *   a client is throttled;
 * - for each group's `Space`, a route under that prefix for every method, which the router picks
 *   only when no endpoint matches: a 404 in the group's envelope (CONTRACT §2: every response under
 *   /v1/gaming/trivia/ is local, the webhook's reduced), its unknown paths included.
 */
export const layer = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const rateLimit = yield* RateLimit
    const operational = (label: string) => withRoute({ label, envelope: "epoch", rateLimit: "operational" }, rateLimit)

    const metrics = Effect.map(PrometheusMetrics.format(), (body) =>
      HttpServerResponse.text(body, { contentType: "text/plain; version=0.0.4; charset=utf-8" })
    )
    yield* router.add("GET", METRICS_PATH, operational(METRICS_PATH)(metrics))

    const document = HttpServerResponse.jsonUnsafe(OpenApi.fromApi(Api))
    yield* router.add("GET", OPENAPI_PATH, operational(OPENAPI_PATH)(Effect.succeed(document)))

    const notFound = Effect.succeed(HttpServerResponse.empty({ status: 404 }))
    for (const { prefix, facts } of SPACES) {
      yield* router.add("*", `${prefix}*` as HttpRouter.PathInput, withRoute(facts, rateLimit)(notFound))
    }
  })
)
