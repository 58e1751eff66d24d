import { Config, ConfigProvider, Duration, Effect, Layer, Option, Redacted } from "effect"
import { RateLimiter, type Redis } from "effect/persistence"
import * as SweepingMemoryStore from "./SweepingMemoryStore.ts"

export const DEFAULT_REDIS_PREFIX = "payments-gaming:ratelimit:"

/** Counters in this process only: each instance limits on its own. */
export const layerMemory: Layer.Layer<RateLimiter.RateLimiterStore> = SweepingMemoryStore.layer

/** Past this a remote store is considered down: a limiter must not become the outage. */
export const STORE_TIMEOUT = Duration.millis(500)

const storeTimedOut = (operation: string) =>
  new RateLimiter.RateLimiterError({
    reason: new RateLimiter.RateLimitStoreError({
      message: `the rate limit store did not answer ${operation} within ${Duration.format(STORE_TIMEOUT)}`
    })
  })

/**
 * `store` with every call bounded by `timeout`: a store that does not answer fails with a
 * `RateLimitStoreError`, which the HTTP limiter treats like any store failure (the request goes on).
 * Only a remote store needs it; the in-memory one answers synchronously, and a timer per request
 * would be pure cost.
 */
export const withTimeout = (
  store: RateLimiter.RateLimiterStore["Service"],
  timeout: Duration.Duration = STORE_TIMEOUT
): RateLimiter.RateLimiterStore["Service"] => {
  const bounded =
    (operation: string) =>
    <A>(effect: Effect.Effect<A, RateLimiter.RateLimiterError>) =>
      Effect.timeoutOrElse(effect, { duration: timeout, orElse: () => Effect.fail(storeTimedOut(operation)) })
  return RateLimiter.RateLimiterStore.of({
    ...store,
    fixedWindow: (options) => bounded("fixedWindow")(store.fixedWindow(options)),
    tokenBucket: (options) => bounded("tokenBucket")(store.tokenBucket(options))
  })
}

/**
 * Counters in Redis, shared by every instance pointed at it. Keys carry a TTL, so nothing outlives
 * its window. Start-up fails when Redis does not answer; afterwards the offline queue is off, so a
 * command during an outage fails at once instead of waiting for a reconnect, and a command Redis
 * does not answer fails after `STORE_TIMEOUT` (the HTTP limiter then lets the request through
 * rather than stalling every caller).
 */
export const layerRedis = (
  url: Redacted.Redacted<string>,
  prefix: string = DEFAULT_REDIS_PREFIX
): Layer.Layer<RateLimiter.RateLimiterStore, Redis.RedisError> =>
  Layer.effect(
    RateLimiter.RateLimiterStore,
    Effect.map(RateLimiter.makeStoreRedis({ prefix }), (store) => withTimeout(store))
  ).pipe(
    Layer.provide(
      // node-redis is several hundred modules: loaded only when Redis is configured, so the
      // in-memory store (the default) does not pay for it at start-up.
      Layer.unwrap(
        Effect.promise(() => import("@effect/platform-node/NodeRedis")).pipe(
          Effect.map((NodeRedis) => NodeRedis.layer({ url: Redacted.value(url), disableOfflineQueue: true }))
        )
      )
    )
  )

const isRedisUrl = (value: string) => {
  try {
    const { protocol } = new URL(value)
    return protocol === "redis:" || protocol === "rediss:"
  } catch {
    return false
  }
}

/**
 * `REDIS_URL` set (and not blank): the Redis store, keys under `RATE_LIMIT_REDIS_PREFIX`; else the
 * in-memory one. The choice is logged at start, never the URL (it may carry a password).
 */
export const layerConfig: Layer.Layer<RateLimiter.RateLimiterStore, Config.ConfigError | Redis.RedisError> =
  Layer.unwrap(
    Effect.gen(function* () {
      const url = yield* Config.Redacted("REDIS_URL").pipe(
        Config.option,
        Config.map(Option.filter((value) => Redacted.value(value).trim() !== "")),
        Config.mapEffect((url) =>
          Option.isNone(url) || isRedisUrl(Redacted.value(url.value))
            ? Effect.succeed(url)
            : Effect.fail(
                new Config.ConfigError(
                  new ConfigProvider.SourceError({ message: "REDIS_URL must be a redis:// or rediss:// URL" })
                )
              )
        )
      )
      const prefix = yield* Config.String("RATE_LIMIT_REDIS_PREFIX").pipe(Config.withDefault(DEFAULT_REDIS_PREFIX))
      if (Option.isNone(url)) {
        yield* Effect.logDebug("Rate limit counters are kept in memory (set REDIS_URL to share them)")
        return layerMemory
      }
      yield* Effect.logInfo(`Rate limit counters are kept in Redis (REDIS_URL) under "${prefix}"`)
      return layerRedis(url.value, prefix)
    })
  )
