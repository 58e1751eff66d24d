import type { EnvelopeStyle, RateLimitClass } from "@payments-gaming/api/RoutePolicy"
import { Context, Effect } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
import type { RateLimit } from "./RateLimit.ts"

/** What the response middleware needs of the route a request matched. */
export interface RouteFacts {
  /** The route pattern (`/v1/user/cards/:cardId`), a metric label: raw paths carry ids. */
  readonly label: string
  readonly envelope: EnvelopeStyle
  readonly rateLimit: RateLimitClass
}

/** A request no route matched: the epoch envelope, counted as client traffic, one metric label for all. */
export const UNMATCHED: RouteFacts = { label: "unmatched", envelope: "epoch", rateLimit: "client" }

// Per request, keyed by Node's own request object: the one object every layer of a request shares,
// whatever the router makes of the request around it. Read once the answer is made; gone with it.
const matched = new WeakMap<object, RouteFacts>()

const sourceOf = (request: HttpServerRequest.HttpServerRequest): object => request.source as object

/** The facts the matched route recorded for `request`, or undefined when no route matched it. */
export const factsOf = (request: HttpServerRequest.HttpServerRequest): RouteFacts | undefined =>
  matched.get(sourceOf(request))

/**
 * Runs a matched route's `app` under its `facts`: records them for the response middleware (its
 * error envelope, metric label and access log) and counts the request against its client's address
 * unless the route is `operational`. Called once per request, by the route itself: its facts are
 * decided when the route is built (RoutePolicies.ts for the API, ServiceRoutes.ts beside it).
 */
export const withRoute =
  (facts: RouteFacts, rateLimit: RateLimit["Service"]) =>
  <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.withFiber((fiber) => {
      matched.set(sourceOf(Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)), facts)
      return rateLimit.perIp(facts.rateLimit, app)
    })
