import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { Config, ConfigProvider, Effect, Layer, Option, Redacted } from "effect"
import { RateLimiter, type Redis } from "effect/persistence"
import * as SweepingMemoryStore from "./SweepingMemoryStore.ts"

export const DEFAULT_REDIS_PREFIX = "payments-gaming:ratelimit:"

/** Counters in this process only: each instance limits on its own. */
export const layerMemory: Layer.Layer<RateLimiter.RateLimiter> = RateLimiter.layer.pipe(
  Layer.provide(SweepingMemoryStore.layer)
)

/**
 * Counters in Redis, shared by every instance pointed at it. Keys carry a TTL, so nothing outlives
 * its window. Start-up fails when Redis does not answer; afterwards the offline queue is off, so a
 * command during an outage fails at once instead of waiting for a reconnect (the HTTP limiter then
 * lets the request through rather than stalling every caller).
 */
export const layerRedis = (
  url: Redacted.Redacted<string>,
  prefix: string = DEFAULT_REDIS_PREFIX
): Layer.Layer<RateLimiter.RateLimiter, Redis.RedisError> =>
  RateLimiter.layer.pipe(
    Layer.provide(RateLimiter.layerStoreRedis({ prefix })),
    Layer.provide(NodeRedis.layer({ url: Redacted.value(url), disableOfflineQueue: true }))
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
export const layerConfig: Layer.Layer<RateLimiter.RateLimiter, Config.ConfigError | Redis.RedisError> = Layer.unwrap(
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
