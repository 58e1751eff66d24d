import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Exit } from "effect"
import { RateLimiter } from "effect/persistence"
import { TestClock } from "effect/testing"
import * as SweepingMemoryStore from "../../src/ratelimit/SweepingMemoryStore.ts"

/** A RateLimiter on a fresh store, and the store's number of counters. */
const setup = Effect.gen(function* () {
  const { store, size } = yield* SweepingMemoryStore.make
  const limiter = yield* Effect.provideService(RateLimiter.make, RateLimiter.RateLimiterStore, store)
  const consume = (key: string, limit: number, window: Duration.Input) =>
    limiter.consume({ key, limit, window, algorithm: "fixed-window", onExceeded: "fail" })
  /** Right, or the retry delay in milliseconds when the limit is exceeded. */
  const attempt = (key: string, limit: number, window: Duration.Input) =>
    Effect.exit(consume(key, limit, window)).pipe(
      Effect.map((exit) => {
        if (Exit.isSuccess(exit)) return "ok" as const
        const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error
        if (error?.reason._tag !== "RateLimitExceeded") throw new Error(`unexpected failure: ${String(error)}`)
        return Duration.toMillis(error.reason.retryAfter)
      })
    )
  return { attempt, size }
})

describe("SweepingMemoryStore", () => {
  it.effect("allows `limit` requests per window and reports the time left when it refuses", () =>
    Effect.gen(function* () {
      const { attempt } = yield* setup
      for (let i = 0; i < 3; i++) assert.strictEqual(yield* attempt("k", 3, "3 seconds"), "ok")
      assert.strictEqual(yield* attempt("k", 3, "3 seconds"), 3000)
      assert.strictEqual(yield* attempt("other", 3, "3 seconds"), "ok")
      yield* TestClock.adjust("1 second")
      // A refused request does not push the end of the window further out.
      assert.strictEqual(yield* attempt("k", 3, "3 seconds"), 2000)
      assert.strictEqual(yield* attempt("k", 3, "3 seconds"), 2000)
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual(yield* attempt("k", 3, "3 seconds"), "ok")
    })
  )

  it.effect("forgets counters whose window has run out", () =>
    Effect.gen(function* () {
      const { attempt, size } = yield* setup
      for (const key of ["a", "b", "c"]) assert.strictEqual(yield* attempt(key, 5, "1 second"), "ok")
      assert.strictEqual(size(), 3)
      yield* TestClock.adjust(SweepingMemoryStore.SWEEP_INTERVAL)
      assert.strictEqual(yield* attempt("d", 5, "1 second"), "ok")
      assert.strictEqual(size(), 1)
      // A counter still inside its window survives a sweep.
      yield* TestClock.adjust(Duration.sum(SweepingMemoryStore.SWEEP_INTERVAL, Duration.millis(100)))
      for (let i = 0; i < 2; i++) assert.strictEqual(yield* attempt("e", 2, "1 hour"), "ok")
      yield* TestClock.adjust(SweepingMemoryStore.SWEEP_INTERVAL)
      assert.strictEqual(yield* attempt("f", 5, "1 second"), "ok")
      assert.strictEqual(size(), 2)
      assert.isNumber(yield* attempt("e", 2, "1 hour"))
    })
  )

  it.effect("a sweep looks at a few counters per request, never all of them in one", () =>
    Effect.gen(function* () {
      const { attempt, size } = yield* setup
      for (let i = 0; i < 100; i++) assert.strictEqual(yield* attempt(`expiring-${i}`, 5, "1 second"), "ok")
      yield* TestClock.adjust(SweepingMemoryStore.SWEEP_INTERVAL)
      // The request that starts the sweep deletes SWEEP_STEP of the 100, and adds its own.
      assert.strictEqual(yield* attempt("x", 1000, "1 hour"), "ok")
      assert.strictEqual(size(), 100 - SweepingMemoryStore.SWEEP_STEP + 1)
      assert.strictEqual(yield* attempt("x", 1000, "1 hour"), "ok")
      assert.strictEqual(size(), 100 - 2 * SweepingMemoryStore.SWEEP_STEP + 1)
      // The following requests finish it; then only the live counter is left.
      for (let i = 0; i < Math.ceil(100 / SweepingMemoryStore.SWEEP_STEP); i++) yield* attempt("x", 1000, "1 hour")
      assert.strictEqual(size(), 1)
    })
  )
})
