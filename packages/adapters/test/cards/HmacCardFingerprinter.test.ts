import { assert, describe, it } from "@effect/vitest"
import { CardFingerprinter } from "@payments-gaming/domain/cards"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import * as HmacCardFingerprinter from "../../src/cards/HmacCardFingerprinter.ts"

const KEY = "k".repeat(HmacCardFingerprinter.MIN_KEY_LENGTH)

const fingerprintWith = (layer: Layer.Layer<CardFingerprinter, unknown>, number: string) =>
  Effect.gen(function* () {
    const fingerprinter = yield* CardFingerprinter
    return yield* fingerprinter.fingerprint(Redacted.make(number))
  }).pipe(Effect.provide(layer))

const fromEnv = (env: Record<string, string>) =>
  HmacCardFingerprinter.layerConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))))

describe("HmacCardFingerprinter", () => {
  it.effect("is HMAC-SHA256 in lowercase hex (RFC 4231, test case 2)", () =>
    Effect.gen(function* () {
      const fingerprint = yield* fingerprintWith(
        HmacCardFingerprinter.layer(Redacted.make("Jefe")),
        "what do ya want for nothing?"
      )
      assert.strictEqual(fingerprint, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    })
  )

  it.effect("is stable for a number, differs between numbers and between keys", () =>
    Effect.gen(function* () {
      const layer = HmacCardFingerprinter.layer(Redacted.make(KEY))
      const first = yield* fingerprintWith(layer, "4242424242424242")
      assert.strictEqual(yield* fingerprintWith(layer, "4242424242424242"), first)
      assert.notStrictEqual(yield* fingerprintWith(layer, "4111111111111111"), first)
      const otherKey = HmacCardFingerprinter.layer(Redacted.make(`${KEY}x`))
      assert.notStrictEqual(yield* fingerprintWith(otherKey, "4242424242424242"), first)
      assert.match(first, /^[0-9a-f]{64}$/)
      assert.notInclude(first, "4242424242424242")
    })
  )

  it.effect("layerConfig reads CARD_FINGERPRINT_KEY", () =>
    Effect.gen(function* () {
      const configured = yield* fingerprintWith(fromEnv({ CARD_FINGERPRINT_KEY: KEY }), "4242424242424242")
      const direct = yield* fingerprintWith(HmacCardFingerprinter.layer(Redacted.make(KEY)), "4242424242424242")
      assert.strictEqual(configured, direct)
    })
  )

  it.effect("layerConfig refuses a missing or short key without printing it", () =>
    Effect.gen(function* () {
      const missing = yield* Effect.flip(fingerprintWith(fromEnv({}), "4242424242424242"))
      assert.include(String(missing), "CARD_FINGERPRINT_KEY")
      const short = yield* Effect.flip(fingerprintWith(fromEnv({ CARD_FINGERPRINT_KEY: "short-secret" }), "1"))
      assert.include(String(short), `at least ${HmacCardFingerprinter.MIN_KEY_LENGTH} bytes`)
      assert.notInclude(String(short), "short-secret")
    })
  )
})
