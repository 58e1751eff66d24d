import { HttpApiMiddleware } from "effect/http-api"

/**
 * Applies each route's policies (RoutePolicy.ts) to its requests, read from the route the request
 * matched: the envelope its errors are answered in, its metric label, and the per-address rate
 * limit of its class (a plain 429, enveloped like any error). Added to the whole API last, so it
 * runs first, before the body guard, authentication and decoding.
 */
export class RoutePolicies extends HttpApiMiddleware.Service<RoutePolicies>()("@payments-gaming/api/RoutePolicies") {}
