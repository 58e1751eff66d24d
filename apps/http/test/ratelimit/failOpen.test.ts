import { assert, describe, it } from "@effect/vitest"
import { STORE_TIMEOUT, withTimeout } from "@payments-gaming/adapters/ratelimit/RateLimitStore"
import { Duration, Effect, Fiber, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { RateLimiter } from "effect/persistence"
import { TestClock } from "effect/testing"
import { make } from "../../src/middleware/RateLimit.ts"

const settings = { perIp: 10, perUser: 10, window: Duration.seconds(10), trustedProxies: [] }
const served = Effect.succeed(HttpServerResponse.text("served"))

/** The limiter on a store whose every fixed-window count is `fixedWindow`. */
const limiterOver = (fixedWindow: RateLimiter.RateLimiterStore["Service"]["fixedWindow"]) =>
  Effect.provideService(make(settings), RateLimiter.RateLimiterStore, {
    fixedWindow,
    tokenBucket: () => Effect.die("unused"),
    adaptiveConsume: () => Effect.die("unused"),
    adaptiveFeedback: () => Effect.die("unused")
  } as unknown as RateLimiter.RateLimiterStore["Service"])

describe("rate limiting when the store fails", () => {
  it.effect("a failing store lets the request through", () =>
    Effect.gen(function* () {
      const limit = yield* limiterOver(() =>
        Effect.fail(
          new RateLimiter.RateLimiterError({
            reason: new RateLimiter.RateLimitStoreError({ message: "connection refused" })
          })
        )
      )
      assert.strictEqual((yield* limit.perUser("alice", served)).status, 200)
    })
  )

  it.effect("a remote store that does not answer holds the request half a second, then lets it through", () =>
    Effect.gen(function* () {
      // The Redis layer wraps its store in withTimeout; here the store never answers at all.
      const silent = RateLimiter.RateLimiterStore.of({
        fixedWindow: () => Effect.never,
        tokenBucket: () => Effect.never,
        adaptiveConsume: () => Effect.die("unused"),
        adaptiveFeedback: () => Effect.die("unused")
      } as unknown as RateLimiter.RateLimiterStore["Service"])
      const limit = yield* make(settings).pipe(
        Effect.provide(Layer.succeed(RateLimiter.RateLimiterStore, withTimeout(silent)))
      )
      const fiber = yield* Effect.forkChild(limit.perUser("alice", served))
      yield* TestClock.adjust("499 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* Fiber.join(fiber)).status, 200)
    })
  )

  it.effect("the timeout is the store's own error, so the limiter's failure path handles it", () =>
    Effect.gen(function* () {
      const silent = { fixedWindow: () => Effect.never } as unknown as RateLimiter.RateLimiterStore["Service"]
      const fiber = yield* Effect.forkChild(
        Effect.flip(withTimeout(silent).fixedWindow({ key: "k", tokens: 1, refillRate: Duration.seconds(1), limit: 1 }))
      )
      yield* TestClock.adjust(STORE_TIMEOUT)
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason._tag, "RateLimitStoreError")
    })
  )

  it.effect("an exceeded limit is a 429 with Retry-After rounded up to whole seconds", () =>
    Effect.gen(function* () {
      // Over the limit a store answers the refused count (one more than the limit) and the
      // counter's time to live.
      const limit = yield* limiterOver(({ limit, tokens }) => Effect.succeed([limit! + tokens, 1200] as const))
      const response = yield* limit.perUser("alice", served)
      assert.strictEqual(response.status, 429)
      assert.strictEqual(response.headers["retry-after"], "2")
    })
  )

  it.effect("a count at the limit is served: the limit is the last request let through", () =>
    Effect.gen(function* () {
      const limit = yield* limiterOver(({ limit }) => Effect.succeed([limit!, 1200] as const))
      assert.strictEqual((yield* limit.perUser("alice", served)).status, 200)
    })
  )
})
