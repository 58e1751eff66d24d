import { RoutePolicies } from "@payments-gaming/api/middleware/RoutePolicies"
import { EnvelopeStyle, policyOf, RateLimited } from "@payments-gaming/api/RoutePolicy"
import { Effect, Layer } from "effect"
import { withRoute } from "./MatchedRoute.ts"
import { RateLimit } from "./RateLimit.ts"

/**
 * Each API route's policies, read from its annotations once, when HttpApiBuilder builds the route
 * (never from the URL a client wrote), and applied to each of its requests (MatchedRoute.ts).
 */
export const layer = Layer.effect(
  RoutePolicies,
  Effect.gen(function* () {
    const rateLimit = yield* RateLimit
    return (effect, route) =>
      withRoute(
        {
          label: route.endpoint.path,
          envelope: policyOf(route, EnvelopeStyle),
          rateLimit: policyOf(route, RateLimited)
        },
        rateLimit
      )(effect)
  })
)
