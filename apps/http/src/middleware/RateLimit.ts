import * as RateLimitStore from "@payments-gaming/adapters/ratelimit/RateLimitStore"
import type { RateLimitClass } from "@payments-gaming/api/RoutePolicy"
import { Clock, Config, ConfigProvider, Context, Duration, Effect, identity, Layer, Option, Result } from "effect"
import { HttpMiddleware, HttpServerRequest, HttpServerResponse } from "effect/http"
import { IpNetwork, NetAddress } from "effect/net"
import { RateLimiter } from "effect/persistence"

type Response = HttpServerResponse.HttpServerResponse

/** The limits (CONTRACT §2: 429 with Retry-After). A limit of 0 turns that limiter off. */
export interface RateLimitSettings {
  /** Requests per window from one client address, on every route but the operational ones. */
  readonly perIp: number
  /** Requests per window for one authenticated user (the bearer's `sub`), from wherever. */
  readonly perUser: number
  readonly window: Duration.Duration
  /** Peers whose `X-Forwarded-For` names the client; empty: the socket's address always decides. */
  readonly trustedProxies: ReadonlyArray<IpNetwork.IpNetwork>
}

export const DEFAULTS = { perIp: 1000, perUser: 300, window: Duration.seconds(10) } as const

/**
 * The two limiters. `perIp` wraps the whole request inside the response middleware (so its 429 gets
 * the envelope, the request id, the access log and the metrics like any other answer, and comes before
 * the body is read); `perUser` wraps the endpoint inside Authentication, the one place that knows the
 * verified `sub` and that every authenticated endpoint already passes through. Both answer with a plain
 * 429 response rather than an error, so no endpoint's error schema has to list it.
 */
export class RateLimit extends Context.Service<
  RateLimit,
  {
    /** Counts `app` against its client's address unless its route is `operational` (RoutePolicy.ts). */
    readonly perIp: <E, R>(
      route: RateLimitClass,
      app: Effect.Effect<Response, E, R>
    ) => Effect.Effect<Response, E, R | HttpServerRequest.HttpServerRequest>
    readonly perUser: <E, R>(sub: string, app: Effect.Effect<Response, E, R>) => Effect.Effect<Response, E, R>
  }
>()("@payments-gaming/http/RateLimit") {}

/**
 * The bucket of a client address. IPv6 clients are counted per /64, the block one subscriber usually
 * gets: counting single addresses would let anyone escape the limit by rotating through their block.
 */
export const addressKey = (address: Option.Option<string>): string => {
  if (Option.isNone(address)) return "ip:unknown"
  const known = addressKeys.get(address.value)
  if (known !== undefined) return known
  // Bounded: a flood of distinct addresses only costs the parse again, never memory.
  if (addressKeys.size >= ADDRESS_KEYS_KEPT) addressKeys.clear()
  const key = parseAddressKey(address.value)
  addressKeys.set(address.value, key)
  return key
}

// Clients come back: the bucket of an address is parsed once, not on every request.
const ADDRESS_KEYS_KEPT = 10_000
const addressKeys = new Map<string, string>()

const parseAddressKey = (address: string): string => {
  const parsed = NetAddress.ipFromString(address)
  if (Result.isFailure(parsed)) return `ip:${address}`
  const canonical = NetAddress.toCanonical(parsed.success)
  if (NetAddress.isIpv4Address(canonical)) return `ip:${NetAddress.formatIp(canonical)}`
  return `ip:${IpNetwork.format(IpNetwork.fromAddressUnsafe(canonical, 64))}`
}

const WARNING_INTERVAL_MS = 10_000

const tooMany = (message: string, retryAfter: Duration.Duration): Response => {
  const seconds = Math.max(1, Math.ceil(Duration.toMillis(retryAfter) / 1000))
  return HttpServerResponse.jsonUnsafe(
    { message: `${message}; retry in ${seconds} s` },
    { status: 429, headers: { "retry-after": String(seconds) } }
  )
}

/**
 * One limit of a fixed window, counted in the store directly: the store's own count is the whole
 * decision (over `count` in the window: refused until the counter expires), so the arithmetic
 * `RateLimiter.consume` redoes on every call (the refill rate from the window, the result and its
 * durations) is done once here. On every request, twice for an authenticated one (issue 16).
 */
interface Limit {
  readonly count: number
  readonly refillRate: Duration.Duration
}

const limitOf = (count: number, window: Duration.Duration): Limit => ({
  count,
  // As RateLimiter.consume: each accepted request pushes the counter's expiry out by this much.
  refillRate: Duration.divideUnsafe(Duration.max(window, Duration.millis(1)), count)
})

export const make = (settings: RateLimitSettings) =>
  Effect.gen(function* () {
    const store = yield* RateLimiter.RateLimiterStore
    let lastWarning = Number.NEGATIVE_INFINITY

    // Fails open: when the store errs or is slow the request goes on, and a warning is logged at most
    // every ten seconds so an outage of the store does not flood the log.
    const storeDown = (cause: unknown) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (now - lastWarning < WARNING_INTERVAL_MS) return Effect.void
        lastWarning = now
        return Effect.logWarning("Rate limit store unavailable: requests pass unlimited", cause)
      })

    /**
     * `app`, or a 429 when `key` is over `limit` in the current window. A remote store bounds its own
     * calls (RateLimitStore.withTimeout); a failure of any kind, that timeout included, lets the
     * request through.
     */
    const limited = <E, R>(key: string, limit: Limit, message: string, app: Effect.Effect<Response, E, R>) =>
      Effect.matchEffect(store.fixedWindow({ key, tokens: 1, refillRate: limit.refillRate, limit: limit.count }), {
        // The store answers [count, ttl]; over the limit it counts nothing and the count is the refused one.
        onSuccess: ([count, ttl]) =>
          count > limit.count ? Effect.succeed(tooMany(message, Duration.millis(ttl))) : app,
        onFailure: (error) => Effect.andThen(storeDown(error), app)
      })

    const perIp = limitOf(settings.perIp, settings.window)
    const perUser = limitOf(settings.perUser, settings.window)

    // Probes and tooling keep working while a client is throttled; everything else, unknown paths
    // included, counts.
    const limitAddress = <E, R>(route: RateLimitClass, app: Effect.Effect<Response, E, R>) =>
      route === "operational"
        ? app
        : Effect.withFiber((fiber) => {
            const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
            return limited(addressKey(request.remoteAddress), perIp, "Too many requests from this address", app)
          })

    // Only behind a proxy the operator names is X-Forwarded-For believed: anyone else could write it.
    const forwarded =
      settings.trustedProxies.length > 0
        ? HttpMiddleware.xForwardedHeaders({ trustedProxies: settings.trustedProxies })
        : identity

    return RateLimit.of({
      perIp: settings.perIp === 0 ? (_, app) => app : (route, app) => forwarded(limitAddress(route, app)),
      perUser:
        settings.perUser === 0
          ? (_, app) => app
          : (sub, app) => limited(`user:${sub}`, perUser, "Too many requests for this user", app)
    })
  })

/** Both limiters off: no store is opened (no Redis connection either). */
export const layerDisabled = Layer.succeed(
  RateLimit,
  RateLimit.of({ perIp: (_, app) => app, perUser: (_, app) => app })
)

/** The limiters on the given store. */
export const layer = (settings: RateLimitSettings) => Layer.effect(RateLimit, make(settings))

const invalid = (message: string) => new Config.ConfigError(new ConfigProvider.SourceError({ message }))

const limitConfig = (name: string, fallback: number) =>
  Config.Int(name).pipe(
    Config.mapEffect((limit) =>
      limit >= 0 ? Effect.succeed(limit) : Effect.fail(invalid(`${name} must be 0 (off) or a number of requests`))
    ),
    Config.withDefault(fallback)
  )

const windowConfig = Config.Duration("RATE_LIMIT_WINDOW").pipe(
  Config.mapEffect((window) =>
    Duration.isFinite(window) && Duration.toMillis(window) >= 1
      ? Effect.succeed(window)
      : Effect.fail(invalid('RATE_LIMIT_WINDOW must be a positive duration such as "10 seconds"'))
  ),
  Config.withDefault(DEFAULTS.window)
)

/** One entry of `TRUST_PROXY`: a network (`10.0.0.0/8`) or a single address (`127.0.0.1`). */
const parseProxy = (entry: string): Result.Result<IpNetwork.IpNetwork, unknown> => {
  if (entry.includes("/")) return IpNetwork.fromString(entry)
  return Result.flatMap(NetAddress.ipFromString(entry), (address) =>
    IpNetwork.fromAddress(NetAddress.toCanonical(address), NetAddress.width(NetAddress.toCanonical(address)))
  )
}

const trustProxyConfig = Config.String("TRUST_PROXY").pipe(
  Config.withDefault(""),
  Config.mapEffect((value) => {
    const entries = value
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== "")
    const networks: Array<IpNetwork.IpNetwork> = []
    for (const entry of entries) {
      const network = parseProxy(entry)
      if (Result.isFailure(network)) {
        return Effect.fail(
          invalid(
            `TRUST_PROXY: "${entry}" is not an IP address or a network with zero host bits (e.g. 10.0.0.0/8,127.0.0.1)`
          )
        )
      }
      networks.push(network.success)
    }
    return Effect.succeed(networks as ReadonlyArray<IpNetwork.IpNetwork>)
  })
)

export const settingsConfig: Config.Config<RateLimitSettings> = Config.all({
  perIp: limitConfig("RATE_LIMIT_PER_IP", DEFAULTS.perIp),
  perUser: limitConfig("RATE_LIMIT_PER_USER", DEFAULTS.perUser),
  window: windowConfig,
  trustedProxies: trustProxyConfig
})

/**
 * The limits from `RATE_LIMIT_PER_IP`, `RATE_LIMIT_PER_USER`, `RATE_LIMIT_WINDOW` and `TRUST_PROXY`,
 * counted in Redis when `REDIS_URL` is set, else in this process.
 */
export const layerConfig = Layer.unwrap(
  Effect.gen(function* () {
    const settings = yield* settingsConfig
    if (settings.perIp === 0 && settings.perUser === 0) {
      yield* Effect.logInfo("Rate limits are off (RATE_LIMIT_PER_IP=0 and RATE_LIMIT_PER_USER=0)")
      return layerDisabled
    }
    yield* Effect.logInfo(
      `Rate limits per ${Duration.format(settings.window)}: ${settings.perIp || "unlimited"} per address, ` +
        `${settings.perUser || "unlimited"} per user`
    )
    return layer(settings).pipe(Layer.provide(RateLimitStore.layerConfig))
  })
)
