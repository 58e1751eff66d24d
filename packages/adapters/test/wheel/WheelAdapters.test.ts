import { assert, describe, it } from "@effect/vitest"
import { WheelTesting } from "@payments-gaming/domain/testing"
import { SeedCrypto, WheelRandom, WheelSettings } from "@payments-gaming/domain/wheel"
import { ConfigProvider, DateTime, Effect, Exit, Layer } from "effect"
import fc from "fast-check"
import * as CryptoWheelRandom from "../../src/wheel/CryptoWheelRandom.ts"
import * as NodeSeedCrypto from "../../src/wheel/NodeSeedCrypto.ts"
import * as WheelSettingsConfig from "../../src/wheel/WheelSettingsConfig.ts"

const hex = (data: Uint8Array) => Buffer.from(data).toString("hex")

describe("NodeSeedCrypto", () => {
  it.effect("agrees with effect/crypto on WebCrypto for any key and any message, Unicode included", () =>
    Effect.gen(function* () {
      const web = yield* Effect.provide(Effect.service(SeedCrypto), WheelTesting.layerWebCryptoSeedCrypto)
      const node = NodeSeedCrypto.make
      const samples = fc.sample(
        fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 80 }), fc.string({ unit: "grapheme", maxLength: 40 })),
        200
      )
      for (const [key, message] of samples) {
        assert.strictEqual(hex(yield* node.hmacSha256(key, message)), hex(yield* web.hmacSha256(key, message)))
        assert.strictEqual(hex(yield* node.sha256(key)), hex(yield* web.sha256(key)))
      }
      assert.strictEqual(
        hex(yield* node.hmacSha256(new TextEncoder().encode("key"), "The quick brown fox jumps over the lazy dog")),
        "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"
      )
    })
  )
})

describe("CryptoWheelRandom", () => {
  it.effect("gives bytes of the asked size, integers in range and random v4 UUIDs", () =>
    Effect.gen(function* () {
      const random = yield* WheelRandom
      const seeds = yield* Effect.forEach(Array.from({ length: 50 }), () => random.bytes(32))
      assert.isTrue(seeds.every((seed) => seed.length === 32))
      assert.strictEqual(new Set(seeds.map(hex)).size, 50)
      const ints = yield* Effect.forEach(Array.from({ length: 2000 }), () => random.int(7))
      assert.isTrue(ints.every((n) => Number.isInteger(n) && n >= 0 && n < 7))
      assert.strictEqual(new Set(ints).size, 7)
      const ids = yield* Effect.forEach(Array.from({ length: 50 }), () => random.uuid)
      assert.isTrue(ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)))
      assert.strictEqual(new Set(ids).size, 50)
    }).pipe(Effect.provide(CryptoWheelRandom.layer))
  )
})

describe("WheelSettingsConfig", () => {
  const settingsFrom = (env: Record<string, string>) =>
    Effect.exit(
      Effect.provide(
        Effect.service(WheelSettings),
        WheelSettingsConfig.layerConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env))))
      )
    )

  it.effect("defaults to NGN and Africa/Lagos", () =>
    Effect.gen(function* () {
      const settings = yield* Effect.flatten(settingsFrom({}))
      assert.strictEqual(settings.currency, "NGN")
      assert.strictEqual(DateTime.zoneToString(settings.timeZone), "Africa/Lagos")
    })
  )

  it.effect("reads DEFAULT_CURRENCY and WHEEL_TIMEZONE", () =>
    Effect.gen(function* () {
      const settings = yield* Effect.flatten(settingsFrom({ DEFAULT_CURRENCY: "USD", WHEEL_TIMEZONE: "Europe/London" }))
      assert.strictEqual(settings.currency, "USD")
      assert.strictEqual(DateTime.zoneToString(settings.timeZone), "Europe/London")
    })
  )

  it.effect("refuses an unknown currency or zone", () =>
    Effect.gen(function* () {
      assert.isTrue(Exit.isFailure(yield* settingsFrom({ DEFAULT_CURRENCY: "XYZ" })))
      assert.isTrue(Exit.isFailure(yield* settingsFrom({ WHEEL_TIMEZONE: "Mars/Olympus" })))
    })
  )
})
