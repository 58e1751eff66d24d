import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Exit, Fiber, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import {
  encodedPayloadSize,
  failure,
  PAYLOAD_LIMIT_BYTES,
  PushErrorCode,
  PushMessage,
  PushResult,
  PushService,
  success
} from "../../src/push/index.ts"
import { layerMemory, PushDeliveryLogMemory, PushGatewaysFake } from "../../src/push/testing.ts"
import { utf8Bytes } from "../../src/text/Utf8Bytes.ts"

const TestLayer = PushService.layer.pipe(Layer.provideMerge(layerMemory))

// SHA-256("abc"), the FIPS 180-2 test vector.
const ABC_SHA256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

const fcmMessage = (overrides: Partial<PushMessage> = {}): PushMessage => ({
  tokenType: "FCM",
  token: "abc",
  title: "Hello",
  body: "World",
  data: { notificationId: "n-1", templateCode: "WELCOME" },
  ...overrides
})

describe("PushResult", () => {
  const expected: ReadonlyArray<readonly [PushErrorCode, boolean, boolean]> = [
    ["UNREGISTERED", true, false],
    ["INVALID_TOKEN", true, false],
    ["SENDER_ID_MISMATCH", true, false],
    ["INVALID_ARGUMENT", false, false],
    ["QUOTA_EXCEEDED", false, true],
    ["UNAVAILABLE", false, true],
    ["INTERNAL", false, true],
    ["TIMEOUT", false, true],
    ["AUTH_ERROR", false, false],
    ["PROVIDER_NOT_CONFIGURED", false, false],
    ["UNKNOWN", false, false]
  ]

  it("covers every error code", () => {
    assert.deepStrictEqual(expected.map(([code]) => code).toSorted(), [...PushErrorCode.literals].toSorted())
  })

  it.each(
    expected.map(([code, deactivate, retryable]) => ({ code, deactivate, retryable }))
  )("failure($code): shouldDeactivateToken=$deactivate retryable=$retryable", ({ code, deactivate, retryable }) => {
    const result = failure(code, "provider says no")
    assert.deepStrictEqual(result, {
      success: false,
      errorCode: code,
      errorMessage: "provider says no",
      shouldDeactivateToken: deactivate,
      retryable,
      providerMessageId: null
    })
  })

  it("encodes success with the fields in the contract's order", () => {
    const json = JSON.stringify(Schema.encodeSync(PushResult)(success("projects/p/messages/1")))
    assert.strictEqual(
      json,
      '{"success":true,"errorCode":null,"errorMessage":null,"shouldDeactivateToken":false,"retryable":false,"providerMessageId":"projects/p/messages/1"}'
    )
  })
})

describe("PushMessage", () => {
  const decode = Schema.decodeUnknownExit(PushMessage)
  it("accepts a token of 1 to 4096 characters and string data", () => {
    assert.isTrue(Exit.isSuccess(decode({ tokenType: "APNS", token: "a", title: "", body: "" })))
    assert.isTrue(Exit.isSuccess(decode({ ...fcmMessage(), token: "t".repeat(4096) })))
  })
  it("refuses an empty or over-long token, an unknown token type and non-string data", () => {
    assert.isTrue(Exit.isFailure(decode({ ...fcmMessage(), token: "" })))
    assert.isTrue(Exit.isFailure(decode({ ...fcmMessage(), token: "t".repeat(4097) })))
    assert.isTrue(Exit.isFailure(decode({ ...fcmMessage(), tokenType: "WEB" })))
    assert.isTrue(Exit.isFailure(decode({ ...fcmMessage(), data: { n: 1 } })))
  })
})

describe("encodedPayloadSize", () => {
  it("is the UTF-8 size of the FCM notification and data, without the token", () => {
    const message = fcmMessage()
    const json = JSON.stringify({ notification: { title: "Hello", body: "World" }, data: message.data })
    assert.strictEqual(encodedPayloadSize({ ...message, token: "t".repeat(4096) }, "FCM"), json.length)
    assert.strictEqual(encodedPayloadSize(message, "FCM"), json.length)
    assert.strictEqual(encodedPayloadSize({ ...message, body: "€😀" }, "FCM"), json.length - 5 + 3 + 4)
  })

  it("is the size of the APNs body, without the token, with aps winning over a data key", () => {
    const base = encodedPayloadSize({ token: "x".repeat(100), title: "T", body: "B" }, "APNS")
    assert.strictEqual(base, '{"aps":{"alert":{"title":"T","body":"B"}}}'.length)
    const withAps = encodedPayloadSize({ token: "x", title: "T", body: "B", data: { aps: "zzz", k: "v" } }, "APNS")
    assert.strictEqual(withAps, '{"aps":{"alert":{"title":"T","body":"B"}},"k":"v"}'.length)
  })

  it("utf8Bytes agrees with TextEncoder on any string, lone surrogates included", () => {
    const encoder = new TextEncoder()
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        assert.deepStrictEqual(utf8Bytes(text), encoder.encode(text))
      })
    )
  })
})

describe("PushService.send", () => {
  it.effect("sends an FCM message through the FCM gateway and records the attempt", () =>
    Effect.gen(function* () {
      const service = yield* PushService
      const result = yield* service.send(fcmMessage())
      assert.deepStrictEqual(result, success("fake-1"))

      const sent = yield* (yield* PushGatewaysFake).sent
      assert.deepStrictEqual(sent, [
        {
          tokenType: "FCM",
          token: "abc",
          notification: { title: "Hello", body: "World", data: { notificationId: "n-1", templateCode: "WELCOME" } }
        }
      ])
      const attempts = yield* (yield* PushDeliveryLogMemory).attempts
      assert.strictEqual(attempts.length, 1)
      const attempt = attempts[0]!
      assert.deepStrictEqual(
        { ...attempt, at: DateTime.toEpochMillis(attempt.at) },
        {
          tokenType: "FCM",
          tokenHash: ABC_SHA256,
          tokenLast8: "abc",
          provider: "fcm",
          success: true,
          errorCode: null,
          errorMessage: null,
          providerMessageId: "fake-1",
          latencyMs: 0,
          at: 0
        }
      )
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("routes an APNs token to the APNs gateway and keeps only the token's last 8 characters", () =>
    Effect.gen(function* () {
      const service = yield* PushService
      const token = "0123456789abcdef0123456789abcdef"
      yield* service.send({ tokenType: "APNS", token, title: "T", body: "B" })
      const sent = yield* (yield* PushGatewaysFake).sent
      assert.deepStrictEqual(sent, [{ tokenType: "APNS", token, notification: { title: "T", body: "B" } }])
      const [attempt] = yield* (yield* PushDeliveryLogMemory).attempts
      assert.strictEqual(attempt?.provider, "apns")
      assert.strictEqual(attempt?.tokenLast8, "89abcdef")
      assert.notInclude(JSON.stringify(attempt), token)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("returns a provider's refusal as the result and records it with its code and latency", () =>
    Effect.gen(function* () {
      const service = yield* PushService
      const refusal = failure("UNREGISTERED", "Requested entity was not found.")
      yield* (yield* PushGatewaysFake).answerNext("FCM", { result: refusal, delay: "250 millis" })
      yield* TestClock.adjust("1 second")

      const fiber = yield* Effect.forkChild(service.send(fcmMessage()))
      yield* TestClock.adjust("250 millis")
      const result = yield* Fiber.join(fiber)

      assert.deepStrictEqual(result, refusal)
      assert.isTrue(result.shouldDeactivateToken)
      const [attempt] = yield* (yield* PushDeliveryLogMemory).attempts
      assert.strictEqual(attempt?.success, false)
      assert.strictEqual(attempt?.errorCode, "UNREGISTERED")
      assert.strictEqual(attempt?.errorMessage, "Requested entity was not found.")
      assert.strictEqual(attempt?.providerMessageId, null)
      assert.strictEqual(attempt?.latencyMs, 250)
      assert.strictEqual(DateTime.toEpochMillis(attempt!.at), 1000)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("accepts a payload of exactly 4096 bytes and refuses 4097 without sending", () =>
    Effect.gen(function* () {
      const service = yield* PushService
      const empty = { tokenType: "APNS" as const, token: "ab", title: "", body: "" }
      const room = PAYLOAD_LIMIT_BYTES - encodedPayloadSize(empty, "APNS")
      // Multi-byte text: the limit is in bytes, not characters.
      const fits = { ...empty, body: `${"€".repeat(Math.floor(room / 3))}${"x".repeat(room % 3)}` }
      assert.strictEqual(encodedPayloadSize(fits, "APNS"), PAYLOAD_LIMIT_BYTES)
      const ok = yield* service.send(fits)
      assert.isTrue(ok.success)

      const error = yield* service.send({ ...fits, body: `${fits.body}x` }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "PayloadTooLarge")
      assert.strictEqual(error.size, PAYLOAD_LIMIT_BYTES + 1)
      assert.strictEqual(error.limit, PAYLOAD_LIMIT_BYTES)
      assert.strictEqual(error.tokenType, "APNS")
      assert.include(error.message, "4097")

      assert.strictEqual((yield* (yield* PushGatewaysFake).sent).length, 1)
      assert.strictEqual((yield* (yield* PushDeliveryLogMemory).attempts).length, 1)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("sends a maximal 4096-character FCM token with a small notification", () =>
    Effect.gen(function* () {
      const service = yield* PushService
      const result = yield* service.send(fcmMessage({ token: "t".repeat(4096), body: "b".repeat(200) }))
      assert.isTrue(result.success)
      assert.strictEqual((yield* (yield* PushGatewaysFake).sent).length, 1)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("refuses an FCM notification whose body alone is over the limit", () =>
    Effect.gen(function* () {
      const service = yield* PushService
      const error = yield* service.send(fcmMessage({ body: "b".repeat(4096) })).pipe(Effect.flip)
      assert.strictEqual(error._tag, "PayloadTooLarge")
      assert.strictEqual((yield* (yield* PushGatewaysFake).sent).length, 0)
    }).pipe(Effect.provide(TestLayer))
  )

  it.effect("still returns the result when the delivery log is down", () =>
    Effect.gen(function* () {
      const service = yield* PushService
      yield* (yield* PushDeliveryLogMemory).breakDown
      const result = yield* service.send(fcmMessage())
      assert.deepStrictEqual(result, success("fake-1"))
      assert.strictEqual((yield* (yield* PushDeliveryLogMemory).attempts).length, 0)
    }).pipe(Effect.provide(TestLayer))
  )
})
