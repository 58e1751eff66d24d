import { Duration, Effect, Layer } from "effect"
import { RateLimiter } from "effect/persistence"

/** How often counters whose window has run out are dropped. */
export const SWEEP_INTERVAL = Duration.seconds(30)

interface Counter {
  count: number
  expiresAt: number
}

/**
 * A process-local RateLimiterStore whose fixed-window counters are forgotten once their window has
 * run out. Effect's own `layerStoreMemory` resets an expired counter only when its key comes back and
 * never deletes it, so a store keyed by client address would grow with every address ever seen. The
 * counter follows the store's contract (and the Redis script): each accepted token pushes the expiry
 * out by `refillRate`; a refused one changes nothing, so hammering does not prolong a block. Token
 * buckets and adaptive state, which this service does not use, are left to Effect's store.
 */
export const make = Effect.gen(function* () {
  const fallback = yield* Effect.provide(
    RateLimiter.RateLimiterStore.useSync((store) => store),
    RateLimiter.layerStoreMemory
  )
  const counters = new Map<string, Counter>()
  const sweepEvery = Duration.toMillis(SWEEP_INTERVAL)
  let nextSweep = 0

  const sweep = (now: number) => {
    if (now < nextSweep) return
    nextSweep = now + sweepEvery
    for (const [key, counter] of counters) {
      if (counter.expiresAt <= now) counters.delete(key)
    }
  }

  const store = RateLimiter.RateLimiterStore.of({
    ...fallback,
    fixedWindow: ({ key, tokens, refillRate, limit }) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => {
          const now = clock.currentTimeMillisUnsafe()
          sweep(now)
          const live = counters.get(key)
          const counter = live !== undefined && live.expiresAt > now ? live : { count: 0, expiresAt: now }
          if (limit !== undefined && counter.count + tokens > limit) {
            return [counter.count + tokens, counter.expiresAt - now] as const
          }
          counter.count += tokens
          counter.expiresAt += Duration.toMillis(refillRate) * tokens
          counters.set(key, counter)
          return [counter.count, counter.expiresAt - now] as const
        })
      )
  })
  return { store, size: () => counters.size }
})

export const layer: Layer.Layer<RateLimiter.RateLimiterStore> = Layer.effect(
  RateLimiter.RateLimiterStore,
  Effect.map(make, ({ store }) => store)
)
