import { assert, describe, it } from "@effect/vitest"
import * as RateLimitStore from "@payments-gaming/adapters/ratelimit/RateLimitStore"
import { ConfigProvider, Duration, Effect, Layer, Option } from "effect"
import { IpNetwork } from "effect/net"
import { addressKey, DEFAULTS, settingsConfig } from "../../src/middleware/RateLimit.ts"

const read = (env: Record<string, string>) =>
  Effect.provide(
    Effect.gen(function* () {
      return yield* settingsConfig
    }),
    ConfigProvider.layer(ConfigProvider.fromUnknown(env))
  )

/** The message of the configuration error `env` causes (fails the test when it reads fine). */
const refusal = (env: Record<string, string>) => Effect.flip(read(env)).pipe(Effect.map((error) => String(error)))

describe("rate limit settings", () => {
  it.effect("defaults: generous limits, a ten-second window, no proxy trusted", () =>
    Effect.gen(function* () {
      const settings = yield* read({})
      assert.strictEqual(settings.perIp, DEFAULTS.perIp)
      assert.strictEqual(settings.perUser, DEFAULTS.perUser)
      assert.isTrue(Duration.equals(settings.window, Duration.seconds(10)))
      assert.deepStrictEqual(settings.trustedProxies, [])
    })
  )

  it.effect("reads the limits, the window and the trusted proxies", () =>
    Effect.gen(function* () {
      const settings = yield* read({
        RATE_LIMIT_PER_IP: "0",
        RATE_LIMIT_PER_USER: "25",
        RATE_LIMIT_WINDOW: "1 minute",
        TRUST_PROXY: " 10.0.0.0/8, 127.0.0.1 ,::1,fd00::/8"
      })
      assert.strictEqual(settings.perIp, 0)
      assert.strictEqual(settings.perUser, 25)
      assert.isTrue(Duration.equals(settings.window, Duration.minutes(1)))
      assert.deepStrictEqual(settings.trustedProxies.map(IpNetwork.format), [
        "10.0.0.0/8",
        "127.0.0.1/32",
        "::1/128",
        "fd00::/8"
      ])
    })
  )

  it.effect("refuses, naming the variable, what cannot be a limit", () =>
    Effect.gen(function* () {
      assert.include(yield* refusal({ RATE_LIMIT_PER_IP: "-1" }), "RATE_LIMIT_PER_IP")
      assert.include(yield* refusal({ RATE_LIMIT_PER_USER: "-5" }), "RATE_LIMIT_PER_USER")
      assert.include(yield* refusal({ RATE_LIMIT_WINDOW: "0 seconds" }), "RATE_LIMIT_WINDOW")
      assert.include(yield* refusal({ RATE_LIMIT_WINDOW: "Infinity" }), "RATE_LIMIT_WINDOW")
      assert.include(yield* refusal({ TRUST_PROXY: "true" }), "TRUST_PROXY")
      assert.include(yield* refusal({ TRUST_PROXY: "10.0.0.0/33" }), "TRUST_PROXY")
      // Not read as a limit at all: the configuration error names the key too.
      assert.include(yield* refusal({ RATE_LIMIT_PER_IP: "many" }), "RATE_LIMIT_PER_IP")
    })
  )
})

describe("addressKey", () => {
  it("counts IPv4 clients per address and IPv6 clients per /64", () => {
    assert.strictEqual(addressKey(Option.some("203.0.113.7")), "ip:203.0.113.7")
    assert.strictEqual(addressKey(Option.some("::ffff:203.0.113.7")), "ip:203.0.113.7")
    assert.strictEqual(addressKey(Option.some("2001:db8:1:2:aaaa::1")), "ip:2001:db8:1:2::/64")
    assert.strictEqual(addressKey(Option.some("2001:db8:1:2::ffff")), "ip:2001:db8:1:2::/64")
    assert.strictEqual(addressKey(Option.some("::1")), "ip:::/64")
    assert.strictEqual(addressKey(Option.none()), "ip:unknown")
    assert.strictEqual(addressKey(Option.some("not-an-ip")), "ip:not-an-ip")
  })
})

describe("REDIS_URL", () => {
  it.effect("is refused at start unless it is a redis:// or rediss:// URL, without echoing it", () =>
    Effect.gen(function* () {
      for (const value of ["127.0.0.1:6379", "http://user:hunter2@127.0.0.1:6379", "not a url"]) {
        const error = yield* Layer.build(RateLimitStore.layerConfig).pipe(
          Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ REDIS_URL: value }))),
          Effect.scoped,
          Effect.flip
        )
        assert.include(String(error), "REDIS_URL must be a redis:// or rediss:// URL")
        assert.notInclude(String(error), "hunter2")
      }
    })
  )
})
