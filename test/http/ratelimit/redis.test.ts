import { randomUUID } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createClient } from "redis"
import { inject } from "vitest"
import { startOwnServer, tokenFor } from "../../support/TestServer.ts"
import { retryAfterSeconds, statuses } from "./RateLimitChecks.ts"

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379"

/** Redis settings with a key prefix of this test's own, so runs (and tests) never share counters. */
const shared = () => ({ REDIS_URL, RATE_LIMIT_REDIS_PREFIX: `payments-gaming-test:${randomUUID()}:` })

/** The keys under `prefix` with their remaining time to live in milliseconds. */
const keysUnder = (prefix: string) =>
  Effect.acquireUseRelease(
    Effect.promise(() => createClient({ url: REDIS_URL }).connect()),
    (client) =>
      Effect.promise(async () => {
        const keys = await client.keys(`${prefix}*`)
        return Promise.all(keys.map(async (key) => [key, await client.pTTL(key)] as const))
      }),
    (client) => Effect.promise(() => client.close())
  )

// Needs a Redis: CI always has one (the suite fails without it there); elsewhere these are skipped
// when none answers, as the start of the run says.
describe.skipIf(!inject("redisAvailable"))("rate limiting with REDIS_URL: counters shared by every instance", () => {
  it.live("two instances on one Redis share the per-address count", () =>
    Effect.gen(function* () {
      const redis = shared()
      const limits = { ...redis, RATE_LIMIT_PER_IP: "4", RATE_LIMIT_PER_USER: "0", RATE_LIMIT_WINDOW: "1 minute" }
      const a = yield* startOwnServer(limits)
      const b = yield* startOwnServer(limits)

      assert.deepStrictEqual(yield* statuses(2, a.request("/v1/wallet")), [401, 401])
      assert.deepStrictEqual(yield* statuses(2, b.request("/v1/wallet")), [401, 401])
      assert.strictEqual((yield* a.request("/v1/wallet")).status, 429)
      const limited = yield* b.request("/v1/wallet")
      assert.strictEqual(limited.status, 429)
      assert.isAtMost(retryAfterSeconds(limited.headers), 60)
      assert.strictEqual((yield* b.request("/healthz")).status, 200)

      // The counter lives in Redis under the configured prefix and expires with its window.
      const keys = yield* keysUnder(redis.RATE_LIMIT_REDIS_PREFIX)
      assert.deepStrictEqual(
        keys.map(([key]) => key),
        [`${redis.RATE_LIMIT_REDIS_PREFIX}ip:127.0.0.1`]
      )
      const ttl = keys[0]?.[1] ?? -1
      assert.isAbove(ttl, 0)
      assert.isAtMost(ttl, 60_000)
    })
  )

  it.live("two instances on one Redis share the per-user count, and the window resets", () =>
    Effect.gen(function* () {
      const limits = { ...shared(), RATE_LIMIT_PER_IP: "100", RATE_LIMIT_PER_USER: "3", RATE_LIMIT_WINDOW: "3 seconds" }
      const a = yield* startOwnServer(limits)
      const b = yield* startOwnServer(limits)
      const alice = yield* tokenFor("alice")
      const bob = yield* tokenFor("bob")

      assert.strictEqual((yield* a.request("/v1/wallet", { token: alice })).status, 200)
      assert.strictEqual((yield* b.request("/v1/wallet", { token: alice })).status, 200)
      assert.strictEqual((yield* a.request("/v1/wallet", { token: alice })).status, 200)
      const limited = yield* b.request("/v1/wallet", { token: alice })
      assert.strictEqual(limited.status, 429)
      assert.match(limited.json.message, /^Too many requests for this user/)
      assert.strictEqual((yield* b.request("/v1/wallet", { token: bob })).status, 200)

      const seconds = retryAfterSeconds(limited.headers)
      assert.isAtMost(seconds, 3)
      yield* Effect.sleep(`${seconds * 1000 + 100} millis`)
      assert.strictEqual((yield* a.request("/v1/wallet", { token: alice })).status, 200)
    })
  )

  it.live("without REDIS_URL each instance counts on its own", () =>
    Effect.gen(function* () {
      const limits = { RATE_LIMIT_PER_IP: "2", RATE_LIMIT_PER_USER: "0", RATE_LIMIT_WINDOW: "1 minute" }
      const a = yield* startOwnServer(limits)
      const b = yield* startOwnServer(limits)
      assert.deepStrictEqual(yield* statuses(3, a.request("/v1/wallet")), [401, 401, 429])
      assert.deepStrictEqual(yield* statuses(3, b.request("/v1/wallet")), [401, 401, 429])
    })
  )
})
