import { Context } from "effect"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

/**
 * The route a request matched, as an `HttpApiMiddleware` is handed it: its endpoint and group.
 * HttpApiBuilder applies a middleware to each endpoint once, when the routes are built, so a policy
 * read from here is decided per route, not per request, and never from the URL text a client wrote
 * (which the router forgives: case, doubled slashes, escapes, a query that names another route).
 */
export interface Route {
  readonly endpoint: HttpApiEndpoint.Top
  readonly group: HttpApiGroup.Top
}

/**
 * A route policy declared on the API: an annotation with a default, set with `.annotate(Policy, value)`
 * on an endpoint (which wins) or on a group.
 */
export type Policy<S> = Context.Reference<S>

export const policy = <S>(key: string, defaultValue: () => S): Policy<S> => Context.Reference<S>(key, { defaultValue })

/** The value of `key` for `route`: the endpoint's annotation, else its group's, else the default. */
export const policyOf = <S>(route: Route, key: Policy<S>): S =>
  Context.get(Context.merge(route.group.annotations, route.endpoint.annotations), key)

/**
 * The endpoint reads its body bytes itself and applies its own rules to them (the webhook: its
 * signature covers the exact bytes, so nothing may refuse or reinterpret them before it is checked).
 * Such a route is left alone by the body guard.
 */
export const ReadsRawBody = policy<boolean>("@payments-gaming/api/RoutePolicy/ReadsRawBody", () => false)

/**
 * The envelope a route answers in (CONTRACT §2): `epoch` timestamps, `local` date-times (trivia), or
 * the webhook's envelope `reduced` to `{ status, message, data }`. Read by the response middleware
 * for the error answers it writes, and by the Node server for its parser errors (a group's `Space`).
 */
export type EnvelopeStyle = "epoch" | "local" | "reduced"
export const EnvelopeStyle = policy<EnvelopeStyle>("@payments-gaming/api/RoutePolicy/EnvelopeStyle", () => "epoch")

/**
 * Whether the per-address rate limit counts a route: `client` traffic does; `operational` routes
 * (probes, metrics, the API's reference) do not, so they keep answering while a client is throttled.
 */
export type RateLimitClass = "client" | "operational"
export const RateLimited = policy<RateLimitClass>("@payments-gaming/api/RoutePolicy/RateLimited", () => "client")

/**
 * The path prefix a group answers for, unknown paths included: a request under it that matches no
 * route (the router's 404, a parser error) gets the group's envelope all the same. Set on a group.
 */
export const Space = policy<string | undefined>("@payments-gaming/api/RoutePolicy/Space", () => undefined)

/** The value of `key` set on `group`, else the default (for what only a group declares, such as `Space`). */
export const groupPolicyOf = <S>(group: HttpApiGroup.Top, key: Policy<S>): S => Context.get(group.annotations, key)
