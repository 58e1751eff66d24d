import { Duration, Effect, Layer } from "effect"
import { RateLimiter } from "effect/persistence"

/**
 * How often counters whose window has run out are dropped. A counter runs out soon after its last
 * request (each one pushes its expiry out by window ÷ limit: 33 ms at the default 300 per 10 s), so
 * between sweeps the map mostly holds the dead counters of every client seen since the last one.
 * At 30 s that was ~40,000 of them under 1,400 new users a second, kept long enough to reach the
 * old generation: peak RSS 183 → 173 MiB on the bench's spin at 1 s (issue 16). A sweep walks only
 * what is left, about a second's worth of clients.
 */
export const SWEEP_INTERVAL = Duration.seconds(1)

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
