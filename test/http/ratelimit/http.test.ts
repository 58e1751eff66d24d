import { assert, describe, it } from "@effect/vitest"
import { WEBHOOK_PATH as WEBHOOK } from "@payments-gaming/api/Paths"
import { Effect } from "effect"
import { startOwnServer, tokenFor } from "../../support/TestServer.ts"
import { ENVELOPE_KEYS, limitedServer, REDUCED_KEYS, retryAfterSeconds, statuses } from "./RateLimitChecks.ts"

const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/

// Real time throughout (it.live): the limiter's windows must run on the clock the server runs on.
describe("rate limiting over HTTP, counters in memory", () => {
  it.live(
    "per address: past the limit every /v1 path answers 429 with the envelope and Retry-After; probes never",
    () =>
      Effect.gen(function* () {
        const server = yield* limitedServer("5", "0", "1 minute")
        const alice = yield* tokenFor("alice")

        // Unauthenticated failures count: guessing tokens is throttled too.
        assert.deepStrictEqual(yield* statuses(5, server.request("/v1/wallet")), [401, 401, 401, 401, 401])

        const limited = yield* server.request("/v1/wallet", { headers: { "x-request-id": "limited-1" } })
        assert.strictEqual(limited.status, 429)
        assert.deepStrictEqual(Object.keys(limited.json), ENVELOPE_KEYS)
        assert.strictEqual(limited.json.status, 429)
        assert.strictEqual(limited.json.success, false)
        assert.isNull(limited.json.data)
        assert.match(limited.json.message, /^Too many requests from this address; retry in \d+ s$/)
        assert.match(limited.json.timestamp, /^\d{13}$/)
        assert.match(limited.headers.get("content-type") ?? "", /application\/json/)
        assert.strictEqual(limited.headers.get("x-request-id"), "limited-1")
        const seconds = retryAfterSeconds(limited.headers)
        assert.isAtMost(seconds, 60)
        assert.include(limited.json.message, `retry in ${seconds} s`)

        // A valid token does not lift the address's limit, and no spelling of the path escapes it.
        const authenticated = yield* server.request("/v1/wallet", { token: alice })
        assert.strictEqual(authenticated.status, 429)
        assert.strictEqual((yield* server.request("//V1/Wallet")).status, 429)
        assert.strictEqual((yield* server.request("/%761/wallet")).status, 429)
        assert.strictEqual((yield* server.request("/no/such/route")).status, 429)

        // Each route keeps its own envelope style on the 429.
        const webhook = yield* server.request(WEBHOOK, { method: "POST", body: {} })
        assert.strictEqual(webhook.status, 429)
        assert.deepStrictEqual(Object.keys(webhook.json), REDUCED_KEYS)
        assert.strictEqual(webhook.json.status, 429)
        retryAfterSeconds(webhook.headers)
        const trivia = yield* server.request("/v1/gaming/trivia/challenges", { token: alice })
        assert.strictEqual(trivia.status, 429)
        assert.match(trivia.json.timestamp, LOCAL)

        // The API reference is counted like any client route (issue 34), the operational endpoints never.
        assert.strictEqual((yield* server.request("/docs")).status, 429)
        for (const path of ["/healthz", "/readyz", "/metrics", "/openapi.json", "/healthz?probe=1"]) {
          assert.deepStrictEqual(yield* statuses(3, server.request(path)), [200, 200, 200], path)
        }
        const metrics = yield* server.request("/metrics")
        assert.match(metrics.text, /http_requests_total\{[^}]*status="429"[^}]*\} \d+/)
      })
  )

  it.live("per user: one user past its limit is refused while another on the same address is served", () =>
    Effect.gen(function* () {
      const server = yield* limitedServer("100", "3", "1 minute")
      const alice = yield* tokenFor("alice")
      const bob = yield* tokenFor("bob")

      assert.deepStrictEqual(yield* statuses(3, server.request("/v1/wallet", { token: alice })), [200, 200, 200])
      const limited = yield* server.request("/v1/wallet", { token: alice })
      assert.strictEqual(limited.status, 429)
      assert.deepStrictEqual(Object.keys(limited.json), ENVELOPE_KEYS)
      assert.match(limited.json.message, /^Too many requests for this user; retry in \d+ s$/)
      assert.isAtMost(retryAfterSeconds(limited.headers), 60)
      // The count is per user, not per endpoint.
      assert.strictEqual((yield* server.request("/v1/spin-and-win", { token: alice })).status, 429)

      assert.deepStrictEqual(yield* statuses(3, server.request("/v1/wallet", { token: bob })), [200, 200, 200])
      // Requests without a user are left to the address limit.
      assert.deepStrictEqual(yield* statuses(3, server.request("/v1/wallet")), [401, 401, 401])
      assert.strictEqual((yield* server.request("/v1/wallet", { token: bob })).status, 429)
    })
  )

  it.live("the window resets: after Retry-After the address is served again", () =>
    Effect.gen(function* () {
      const server = yield* startOwnServer({
        RATE_LIMIT_PER_IP: "2",
        RATE_LIMIT_PER_USER: "0",
        // Each accepted request holds the window open for window / limit: a second apiece here, so a
        // slow machine cannot see the count lapse between two requests of the same burst.
        RATE_LIMIT_WINDOW: "2 seconds"
      })
      assert.deepStrictEqual(yield* statuses(3, server.request("/v1/wallet")), [401, 401, 429])
      const limited = yield* server.request("/v1/wallet")
      assert.strictEqual(limited.status, 429)
      const seconds = retryAfterSeconds(limited.headers)
      assert.isAtMost(seconds, 2)
      yield* Effect.sleep(`${seconds * 1000 + 100} millis`)
      assert.deepStrictEqual(yield* statuses(3, server.request("/v1/wallet")), [401, 401, 429])
    })
  )

  it.live("X-Forwarded-For is ignored unless TRUST_PROXY names the peer", () =>
    Effect.gen(function* () {
      const direct = yield* limitedServer("2", "0")
      const spoofed = yield* Effect.forEach(["203.0.113.1", "203.0.113.2", "203.0.113.3"], (client) =>
        Effect.map(direct.request("/v1/wallet", { headers: { "x-forwarded-for": client } }), (r) => r.status)
      )
      assert.deepStrictEqual(spoofed, [401, 401, 429])

      const proxied = yield* startOwnServer({
        RATE_LIMIT_PER_IP: "2",
        RATE_LIMIT_PER_USER: "0",
        TRUST_PROXY: "127.0.0.1"
      })
      const from = (forwardedFor: string) =>
        Effect.map(proxied.request("/v1/wallet", { headers: { "x-forwarded-for": forwardedFor } }), (r) => r.status)
      assert.deepStrictEqual(
        yield* Effect.forEach(["203.0.113.1", "203.0.113.1", "203.0.113.1"], from),
        [401, 401, 429]
      )
      assert.strictEqual(yield* from("203.0.113.2"), 401)
      // Only the entry the trusted proxy appended counts: a client's own prefix is not believed.
      assert.deepStrictEqual(
        yield* Effect.forEach(
          ["198.51.100.1, 203.0.113.3", "198.51.100.2, 203.0.113.3", "198.51.100.3, 203.0.113.3"],
          from
        ),
        [401, 401, 429]
      )
      // IPv6 clients share a bucket per /64.
      assert.deepStrictEqual(
        yield* Effect.forEach(["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff::9"], from),
        [401, 401, 429]
      )
      assert.strictEqual(yield* from("2001:db8:1:3::1"), 401)
    })
  )

  it.live("a limit of 0 turns that limiter off", () =>
    Effect.gen(function* () {
      const userOnly = yield* limitedServer("0", "2")
      const alice = yield* tokenFor("alice")
      const anonymous = yield* statuses(20, userOnly.request("/v1/wallet"))
      assert.deepStrictEqual(
        anonymous,
        Array.from({ length: 20 }, () => 401)
      )
      assert.deepStrictEqual(yield* statuses(3, userOnly.request("/v1/wallet", { token: alice })), [200, 200, 429])

      const off = yield* limitedServer("0", "0")
      assert.deepStrictEqual(
        yield* statuses(20, off.request("/v1/wallet", { token: alice })),
        Array.from({ length: 20 }, () => 200)
      )
    })
  )
})
