import { Duration, Effect, Layer } from "effect"
import { RateLimiter } from "effect/persistence"

/** How often counters whose window has run out are dropped. */
export const SWEEP_INTERVAL = Duration.seconds(30)

/**
 * How many counters one call looks at while a sweep is under way. A sweep used to visit every
 * counter in the one request that started it, and that request, and every one queued behind it,
 * waited (issue 35): 30,000 expired counters (a minute of unique users at 500 spins a second) took
 * 4–5 ms to delete at once, 25–53 ms before the JIT had warmed up. Sixteen at a time, the slowest
 * call took 0.6–1.3 ms (the `Map` shrinking its table as it empties). A call can add two counters
 * (its address's and its user's), so looking at more than two per call always finishes a sweep,
 * in at most counters ÷ (SWEEP_STEP − 2) calls.
 */
export const SWEEP_STEP = 16

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
  // The sweep under way: a `Map` iterator stays valid while entries are deleted and added, and
  // visits the ones added after it started too.
  let sweeping: Iterator<[string, Counter]> | undefined

  const sweep = (now: number) => {
    if (sweeping === undefined) {
      if (now < nextSweep) return
      sweeping = counters.entries()
    }
    for (let visited = 0; visited < SWEEP_STEP; visited++) {
      const next = sweeping.next()
      if (next.done === true) {
        sweeping = undefined
        nextSweep = now + sweepEvery
        return
      }
      const [key, counter] = next.value
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
