import { createPublicKey } from "node:crypto"
import net from "node:net"
import { assert, describe, it, layer } from "@effect/vitest"
import type { PushErrorCode, PushNotification } from "@payments-gaming/domain/push"
import { Effect, Layer } from "effect"
import { decodeProtectedHeader, jwtVerify } from "jose"
import { ApnsClient } from "../../src/apns/ApnsClient.ts"
import * as ApnsGateway from "../../src/apns/ApnsGateway.ts"
import { FakeApnsServer } from "../support/FakeApnsServer.ts"

const KEY_ID = "ABC123DEFG"
const TEAM_ID = "DEF123GHIJ"
const TOPIC = "com.example.wallet"

const clientLayer = (fake: FakeApnsServer["Service"], port = fake.port) =>
  ApnsClient.layer({
    keyPath: fake.certificates.apnsKeyPath,
    keyId: KEY_ID,
    teamId: TEAM_ID,
    production: false,
    address: "localhost",
    port,
    ca: [fake.certificates.caPem],
    // Short, so a stream left hanging by the time-out test ends before the provider shuts down.
    requestTimeout: 1000
  })

const TestLayer = Layer.unwrap(FakeApnsServer.useSync((fake) => clientLayer(fake))).pipe(
  Layer.provideMerge(FakeApnsServer.layer)
)

const notification: PushNotification = {
  title: "Hello",
  body: "Your transfer arrived",
  data: { notificationId: "n-42", templateCode: "TRANSFER_IN" }
}

let tokenCounter = 0
const freshToken = () => `${(++tokenCounter).toString(16).padStart(8, "0")}${"ab".repeat(28)}`

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

interface ReasonCase {
  readonly reason: string
  readonly status: number
  readonly errorCode: PushErrorCode
  /** node-apn retries 429, 5xx and ExpiredProviderToken three times by itself. */
  readonly requests?: number
}

const reasons: ReadonlyArray<ReasonCase> = [
  { reason: "BadDeviceToken", status: 400, errorCode: "INVALID_TOKEN" },
  { reason: "DeviceTokenNotForTopic", status: 400, errorCode: "INVALID_TOKEN" },
  { reason: "TopicDisallowed", status: 400, errorCode: "INVALID_TOKEN" },
  { reason: "Unregistered", status: 410, errorCode: "UNREGISTERED" },
  { reason: "ExpiredToken", status: 410, errorCode: "UNREGISTERED" },
  { reason: "TooManyRequests", status: 429, errorCode: "QUOTA_EXCEEDED", requests: 4 },
  { reason: "InternalServerError", status: 500, errorCode: "INTERNAL", requests: 4 },
  { reason: "ServiceUnavailable", status: 503, errorCode: "UNAVAILABLE", requests: 4 },
  { reason: "Shutdown", status: 503, errorCode: "UNAVAILABLE", requests: 4 },
  { reason: "ExpiredProviderToken", status: 403, errorCode: "AUTH_ERROR", requests: 4 },
  { reason: "InvalidProviderToken", status: 403, errorCode: "AUTH_ERROR" },
  { reason: "MissingProviderToken", status: 403, errorCode: "AUTH_ERROR" },
  { reason: "PayloadEmpty", status: 400, errorCode: "INVALID_ARGUMENT" },
  { reason: "PayloadTooLarge", status: 413, errorCode: "INVALID_ARGUMENT" },
  { reason: "BadTopic", status: 400, errorCode: "INVALID_ARGUMENT" },
  { reason: "MissingTopic", status: 400, errorCode: "INVALID_ARGUMENT" },
  { reason: "BadCollapseId", status: 400, errorCode: "INVALID_ARGUMENT" },
  { reason: "BadExpirationDate", status: 400, errorCode: "INVALID_ARGUMENT" },
  { reason: "BadMessageId", status: 400, errorCode: "INVALID_ARGUMENT" },
  { reason: "BadPriority", status: 400, errorCode: "INVALID_ARGUMENT" },
  { reason: "InvalidPushType", status: 400, errorCode: "INVALID_ARGUMENT" },
  { reason: "SomethingApple Added Later", status: 400, errorCode: "UNKNOWN" }
]

const DEACTIVATING = new Set<PushErrorCode>(["UNREGISTERED", "INVALID_TOKEN", "SENDER_ID_MISMATCH"])
const RETRYABLE = new Set<PushErrorCode>(["QUOTA_EXCEEDED", "UNAVAILABLE", "INTERNAL", "TIMEOUT"])

describe("ApnsGateway with the real @parse/node-apn against a loopback APNs", () => {
  // The real clock: time-outs are measured against a server that never answers.
  layer(TestLayer, { timeout: "30 seconds", excludeTestServices: true })((it) => {
    it.effect("sends an alert to the topic and returns the apns-id", () =>
      Effect.gen(function* () {
        const fake = yield* FakeApnsServer
        const gateway = yield* ApnsGateway.make({ topic: TOPIC })
        const token = freshToken()
        const result = yield* gateway.send(token, notification)

        assert.strictEqual(gateway.name, "apns")
        assert.isTrue(result.success)
        assert.isNull(result.errorCode)
        assert.isNull(result.errorMessage)
        assert.isFalse(result.shouldDeactivateToken)
        assert.isFalse(result.retryable)

        const requests = fake.requestsFor(token)
        assert.strictEqual(requests.length, 1)
        const request = requests[0]!
        assert.strictEqual(request.method, "POST")
        assert.strictEqual(request.path, `/3/device/${token}`)
        assert.strictEqual(request.headers["apns-topic"], TOPIC)
        assert.strictEqual(request.headers["apns-push-type"], "alert")
        assert.match(String(request.headers["apns-id"]), UUID)
        assert.strictEqual(result.providerMessageId, request.headers["apns-id"])
        assert.deepStrictEqual(request.body, {
          notificationId: "n-42",
          templateCode: "TRANSFER_IN",
          aps: { alert: { title: "Hello", body: "Your transfer arrived" } }
        })
        // No collapse key asked for (the debug push): none sent.
        assert.isUndefined(request.headers["apns-collapse-id"])
      })
    )

    it.effect("sends the collapse key as the apns-collapse-id header", () =>
      Effect.gen(function* () {
        const fake = yield* FakeApnsServer
        const gateway = yield* ApnsGateway.make({ topic: TOPIC })
        const token = freshToken()
        const key = "0b6f7c1e-5d0a-4a57-9a55-3d8e2f1c9b10"
        const result = yield* gateway.send(token, { ...notification, collapseKey: key })
        assert.isTrue(result.success)
        const request = fake.requestsFor(token)[0]!
        assert.strictEqual(request.headers["apns-collapse-id"], key)
        assert.deepStrictEqual(request.body, {
          notificationId: "n-42",
          templateCode: "TRANSFER_IN",
          aps: { alert: { title: "Hello", body: "Your transfer arrived" } }
        })
      })
    )

    it.effect("takes providerMessageId from APNs' answer", () =>
      Effect.gen(function* () {
        const fake = yield* FakeApnsServer
        const gateway = yield* ApnsGateway.make({ topic: TOPIC })
        const token = freshToken()
        fake.replyTo(token, { status: 200, apnsId: "5e0b5a4e-0000-4000-8000-00000000abcd" })
        const result = yield* gateway.send(token, { title: "T", body: "B" })
        assert.strictEqual(result.providerMessageId, "5e0b5a4e-0000-4000-8000-00000000abcd")
        assert.deepStrictEqual(fake.requestsFor(token)[0]?.body, { aps: { alert: { title: "T", body: "B" } } })
      })
    )

    it.effect("presents an ES256 provider token signed with the team's key", () =>
      Effect.gen(function* () {
        const fake = yield* FakeApnsServer
        const gateway = yield* ApnsGateway.make({ topic: TOPIC })
        const token = freshToken()
        yield* gateway.send(token, notification)

        const authorization = String(fake.requestsFor(token)[0]?.headers.authorization)
        const match = /^bearer (\S+)$/.exec(authorization)
        assert.isNotNull(match)
        const jwt = match![1]!
        const header = decodeProtectedHeader(jwt)
        assert.strictEqual(header.alg, "ES256")
        assert.strictEqual(header.kid, KEY_ID)
        const publicKey = createPublicKey(fake.certificates.apnsKeyPem)
        const { payload } = yield* Effect.promise(() => jwtVerify(jwt, publicKey, { algorithms: ["ES256"] }))
        assert.strictEqual(payload.iss, TEAM_ID)
        assert.isNumber(payload.iat)
        assert.isAtMost(Math.abs((payload.iat ?? 0) - Date.now() / 1000), 120)
      })
    )

    for (const testCase of reasons) {
      it.effect(`${testCase.status} ${testCase.reason} → ${testCase.errorCode}`, () =>
        Effect.gen(function* () {
          const fake = yield* FakeApnsServer
          const gateway = yield* ApnsGateway.make({ topic: TOPIC })
          const token = freshToken()
          fake.replyTo(token, { status: testCase.status, reason: testCase.reason, timestamp: 1_700_000_000_000 })

          const result = yield* gateway.send(token, notification)

          assert.deepStrictEqual(result, {
            success: false,
            errorCode: testCase.errorCode,
            errorMessage: testCase.reason,
            shouldDeactivateToken: DEACTIVATING.has(testCase.errorCode),
            retryable: RETRYABLE.has(testCase.errorCode),
            providerMessageId: null
          })
          const requests = fake.requestsFor(token)
          assert.strictEqual(requests.length, testCase.requests ?? 1)
          assert.strictEqual(requests[0]?.headers["apns-topic"], TOPIC)
          if (testCase.reason === "ExpiredProviderToken") {
            // node-apn signs a fresh provider token before each retry.
            const tokens = new Set(requests.map((request) => request.headers.authorization))
            assert.strictEqual(tokens.size, requests.length)
          }
        })
      )
    }

    it.effect("refuses a non-hexadecimal device token without calling APNs → INVALID_TOKEN", () =>
      Effect.gen(function* () {
        const fake = yield* FakeApnsServer
        const gateway = yield* ApnsGateway.make({ topic: TOPIC })
        const result = yield* gateway.send("not/a-token", notification)
        assert.strictEqual(result.errorCode, "INVALID_TOKEN")
        assert.isTrue(result.shouldDeactivateToken)
        assert.strictEqual(fake.requestsFor("not/a-token").length, 0)
      })
    )

    it.effect("gives up after its timeout when APNs never answers → TIMEOUT", () =>
      Effect.gen(function* () {
        const fake = yield* FakeApnsServer
        const gateway = yield* ApnsGateway.make({ topic: TOPIC, timeout: "300 millis" })
        const token = freshToken()
        fake.replyTo(token, "hang")
        const started = Date.now()
        const result = yield* gateway.send(token, notification)
        assert.isAtLeast(Date.now() - started, 290)
        assert.strictEqual(result.errorCode, "TIMEOUT")
        assert.isTrue(result.retryable)
        assert.strictEqual(result.errorMessage, "APNs did not answer within 300ms")
        assert.strictEqual(fake.requestsFor(token).length, 1)
      })
    )

    it.effect("node-apn's own request time-out is a TIMEOUT too", () =>
      Effect.gen(function* () {
        const fake = yield* FakeApnsServer
        const gateway = yield* ApnsGateway.make({ topic: TOPIC })
        const token = freshToken()
        fake.replyTo(token, "hang")
        const result = yield* gateway.send(token, notification)
        assert.strictEqual(result.errorCode, "TIMEOUT")
        assert.strictEqual(result.errorMessage, "apn write timeout")
      })
    )
  })
})

describe("ApnsGateway without a reachable APNs", () => {
  layer(FakeApnsServer.layer, { excludeTestServices: true })((it) => {
    it.effect("a refused connection → UNAVAILABLE", () =>
      Effect.gen(function* () {
        const fake = yield* FakeApnsServer
        const closedPort = yield* Effect.promise(
          () =>
            new Promise<number>((resolve) => {
              const probe = net.createServer().listen(0, "127.0.0.1", () => {
                const { port } = probe.address() as net.AddressInfo
                probe.close(() => resolve(port))
              })
            })
        )
        const result = yield* Effect.flatMap(ApnsGateway.make({ topic: TOPIC }), (gateway) =>
          gateway.send(freshToken(), notification)
        ).pipe(Effect.provide(clientLayer(fake, closedPort)))
        assert.strictEqual(result.errorCode, "UNAVAILABLE")
        assert.isTrue(result.retryable)
        assert.isFalse(result.shouldDeactivateToken)
        assert.match(result.errorMessage ?? "", /ECONNREFUSED|apn write failed/)
      })
    )

    it.effect("fails to start with a missing key file or a key that cannot sign ES256", () =>
      Effect.gen(function* () {
        const fake = yield* FakeApnsServer
        const startingWith = (keyPath: string) =>
          ApnsClient.useSync((client) => client).pipe(
            Effect.provide(ApnsClient.layer({ keyPath, keyId: KEY_ID, teamId: TEAM_ID, production: false })),
            Effect.flip
          )
        const missing = yield* startingWith(`${fake.certificates.dir}/missing.p8`)
        assert.match(missing.message, /^Cannot read the APNs key/)
        const notAKey = yield* startingWith(`${fake.certificates.dir}/ca.crt`)
        assert.match(notAKey.message, /^Cannot start the APNs client/)
      })
    )
  })
})

describe("apnsErrorCode", () => {
  it("is UNKNOWN for a reason it does not know", () => {
    assert.strictEqual(ApnsGateway.apnsErrorCode("Unregistered"), "UNREGISTERED")
    assert.strictEqual(ApnsGateway.apnsErrorCode("unregistered"), "UNKNOWN")
    assert.strictEqual(ApnsGateway.apnsErrorCode("toString"), "UNKNOWN")
  })
})
