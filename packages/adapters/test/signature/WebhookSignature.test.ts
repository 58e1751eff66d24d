import { createHmac } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { WebhookVerifier } from "@payments-gaming/domain/banking"
import { exampleBytes } from "@payments-gaming/domain/test/support/fixtures"
import { ConfigProvider, Effect, Exit, Layer, Redacted } from "effect"
import * as WebhookSignature from "../../src/signature/WebhookSignature.ts"

const current = "whsec-current-0123456789abcdef"
const previous = "whsec-previous-fedcba9876543210"
const body = exampleBytes("virtual-account-credit")

const verify = (signature: string | undefined, rawBody: Uint8Array = body) =>
  Effect.gen(function* () {
    const verifier = yield* WebhookVerifier
    return yield* Effect.exit(verifier.verify(rawBody, signature))
  }).pipe(Effect.provide(WebhookSignature.layer([Redacted.make(current), Redacted.make(previous)])))

const accepted = (signature: string | undefined, rawBody?: Uint8Array) =>
  Effect.map(verify(signature, rawBody), (exit) => {
    assert.isTrue(Exit.isSuccess(exit), `expected ${signature} to be accepted`)
  })

const refused = (signature: string | undefined, rawBody?: Uint8Array) =>
  Effect.map(verify(signature, rawBody), (exit) => {
    assert.isTrue(Exit.isFailure(exit), `expected ${signature} to be refused`)
    if (Exit.isFailure(exit)) assert.include(String(exit.cause), "InvalidSignature")
  })

describe("webhook signature", () => {
  it("signs like any HMAC-SHA256 implementation", () => {
    assert.strictEqual(WebhookSignature.sign(current, body), createHmac("sha256", current).update(body).digest("hex"))
    assert.match(WebhookSignature.sign(Redacted.make(current), body), /^[0-9a-f]{64}$/)
  })

  it.effect("accepts the signature in lowercase and in uppercase hex", () =>
    Effect.gen(function* () {
      const signature = WebhookSignature.sign(current, body)
      yield* accepted(signature)
      yield* accepted(signature.toUpperCase())
    })
  )

  it.effect("accepts a signature made with a rotated (second) secret", () =>
    accepted(WebhookSignature.sign(previous, body))
  )

  it.effect("refuses a missing, empty, truncated, non-hex or other-secret signature", () =>
    Effect.gen(function* () {
      const good = WebhookSignature.sign(current, body)
      yield* refused(undefined)
      yield* refused("")
      yield* refused(good.slice(0, 63))
      yield* refused(good.slice(0, 32))
      yield* refused(`${good}00`)
      yield* refused(`sha256=${good}`)
      yield* refused(`${good.slice(0, 63)}g`)
      yield* refused("z".repeat(64))
      yield* refused(WebhookSignature.sign("some-other-secret", body))
    })
  )

  it.effect("refuses a good signature over different bytes, down to one changed byte", () =>
    Effect.gen(function* () {
      const good = WebhookSignature.sign(current, body)
      const tampered = new Uint8Array(body)
      tampered[10] = tampered[10]! ^ 1
      yield* refused(good, tampered)
      const reformatted = new TextEncoder().encode(JSON.stringify(JSON.parse(new TextDecoder().decode(body))))
      yield* refused(good, reformatted)
    })
  )

  it.effect("reads the secrets from WEBHOOK_SECRETS, comma-separated", () =>
    Effect.gen(function* () {
      const provider = ConfigProvider.fromUnknown({ WEBHOOK_SECRETS: ` ${current} , ${previous} ` })
      const exit = yield* Effect.gen(function* () {
        const verifier = yield* WebhookVerifier
        yield* verifier.verify(body, WebhookSignature.sign(previous, body))
        return yield* Effect.flip(verifier.verify(body, WebhookSignature.sign("nope", body)))
      }).pipe(
        Effect.provide(WebhookSignature.layerConfig.pipe(Layer.provide(ConfigProvider.layer(provider)))),
        Effect.exit
      )
      assert.isTrue(Exit.isSuccess(exit))
      const empty = yield* Effect.exit(
        Effect.provide(
          Effect.service(WebhookVerifier),
          WebhookSignature.layerConfig.pipe(
            Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ WEBHOOK_SECRETS: " , " })))
          )
        )
      )
      assert.isTrue(Exit.isFailure(empty))
    })
  )
})
