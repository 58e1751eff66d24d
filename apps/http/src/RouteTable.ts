import {
  EnvelopeStyle,
  groupPolicyOf,
  policyOf,
  type RateLimitClass,
  RateLimited,
  Space
} from "@payments-gaming/api/RoutePolicy"
import * as FindMyWay from "effect/http/FindMyWay"
import { HttpApi, type HttpApiGroup } from "effect/http-api"

/**
 * The router's settings, shared by the service's router (Server.ts) and this table's matcher so
 * both match the same requests. `maxParamLength`: the longest path parameter matched. FindMyWay's
 * default is 100, shorter than a user id (1 to 128 characters, a token's `sub`), so the admin
 * user-statement route answered 404 for ids of 101 to 128 characters (issue 34).
 */
export const ROUTER_CONFIG = { maxParamLength: 128 } as const

/** What the response middleware and the Node server need of a request's route. */
export interface RouteEntry {
  /** The route pattern (`/v1/user/cards/:cardId`), a metric label: raw paths carry ids. */
  readonly label: string
  readonly envelope: EnvelopeStyle
  readonly rateLimit: RateLimitClass
}

/** A route served beside the API (its reference, Prometheus): the epoch envelope, and its rate-limit class. */
export interface ExtraRoute {
  readonly method: string
  readonly path: string
  readonly rateLimit: RateLimitClass
}

export interface RouteTable {
  /** The entry of the route `method` and `url` match, else of what they fall under (see `make`). */
  readonly find: (method: string, url: string) => RouteEntry
}

const UNMATCHED = "unmatched"
const NO_ROUTE: RouteEntry = { label: UNMATCHED, envelope: "epoch", rateLimit: "client" }

// The path as the router reads it when the matcher could not: escapes decoded, slashes collapsed,
// case folded. Only requests that match no route pay for it.
const normalisedPath = (url: string) => {
  const path = url.split("?")[0] ?? ""
  let decoded = path
  try {
    decoded = decodeURIComponent(path)
  } catch {
    // A malformed escape cannot match a route either; the raw path decides.
  }
  return decoded.replace(/\/{2,}/g, "/").toLowerCase()
}
const withoutTrailingSlash = (path: string) => (path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path)

/**
 * The route policies of `api` (RoutePolicy.ts), read once at start-up with HttpApi.reflect and matched
 * per request by the matcher Effect's router uses (FindMyWay, with the router's settings: its defaults
 * (case folded, doubled and trailing slashes ignored) and `ROUTER_CONFIG`), so the policy of a request is its route's, never a rule
 * on the URL text. Once per request, by the response middleware: one lookup gives the metric label,
 * the envelope and the rate-limit class.
 *
 * A request that matches no route (a 404, another method, a path the matcher cannot decode, a parser
 * error) still needs an envelope and a class: it gets those of the route whose path it names under any
 * method, else of the group whose `Space` it falls under, else the epoch envelope and the client class.
 */
export const make = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  extra: ReadonlyArray<ExtraRoute>
): RouteTable => {
  const router = FindMyWay.make<RouteEntry>(ROUTER_CONFIG)
  const byPath = new Map<string, RouteEntry>()
  const spaces: Array<readonly [string, RouteEntry]> = []
  const add = (method: string, path: string, envelope: EnvelopeStyle, rateLimit: RateLimitClass) => {
    router.on(method, path as FindMyWay.PathInput, { label: path, envelope, rateLimit })
    if (!path.includes(":") && !path.includes("*")) {
      byPath.set(withoutTrailingSlash(path.toLowerCase()), { label: UNMATCHED, envelope, rateLimit })
    }
  }
  HttpApi.reflect(api, {
    onGroup: ({ group }) => {
      const space = groupPolicyOf(group, Space)
      if (space === undefined) return
      spaces.push([
        space.toLowerCase(),
        {
          label: UNMATCHED,
          envelope: groupPolicyOf(group, EnvelopeStyle),
          rateLimit: groupPolicyOf(group, RateLimited)
        }
      ])
    },
    onEndpoint: (route) =>
      add(route.endpoint.method, route.endpoint.path, policyOf(route, EnvelopeStyle), policyOf(route, RateLimited))
  })
  for (const route of extra) add(route.method, route.path, "epoch", route.rateLimit)

  const unmatched = (url: string): RouteEntry => {
    const path = normalisedPath(url)
    const known = byPath.get(withoutTrailingSlash(path))
    if (known !== undefined) return known
    for (const [prefix, entry] of spaces) if (path.startsWith(prefix)) return entry
    return NO_ROUTE
  }
  return { find: (method, url) => router.find(method, url)?.handler ?? unmatched(url) }
}
