import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it, layer } from "@effect/vitest"
import type { PushErrorCode, PushNotification } from "@payments-gaming/domain/push"
import { Effect, Layer } from "effect"
import { FcmClient } from "../../src/fcm/FcmClient.ts"
import * as FcmGateway from "../../src/fcm/FcmGateway.ts"
import { FakeFcmServer, type FcmReply, fcmError } from "../support/FakeFcmServer.ts"
import { makeTestCertificates } from "../support/TestCertificates.ts"

const PROJECT_ID = "test-project"

// firebase-admin asks the credential for an OAuth token; no Google endpoint is involved.
const credential = { getAccessToken: async () => ({ access_token: "test-access-token", expires_in: 3600 }) }

const TestLayer = Layer.unwrap(
  FakeFcmServer.useSync((fake) => FcmClient.layer({ projectId: PROJECT_ID, credential, httpAgent: fake.agent }))
).pipe(Layer.provideMerge(FakeFcmServer.layer))

const notification: PushNotification = {
  title: "Hello",
  body: "Your transfer arrived",
  data: { notificationId: "n-42", templateCode: "TRANSFER_IN" }
}

/** The body FCM must receive for `notification` to `token`. */
const sentBody = (token: string) => ({
  message: {
    token,
    notification: { title: "Hello", body: "Your transfer arrived" },
    data: { notificationId: "n-42", templateCode: "TRANSFER_IN" }
  }
})

let tokenCounter = 0
const freshToken = (label: string) => `fcm-${label}-${++tokenCounter}`

interface MappingCase {
  readonly name: string
  readonly reply: FcmReply
  readonly errorCode: PushErrorCode
  readonly shouldDeactivateToken: boolean
  readonly retryable: boolean
  readonly errorMessage: string | RegExp
  /** How many requests firebase-admin makes: it retries a 503 four times by itself. */
  readonly requests?: number
}

// The bodies FCM HTTP v1 really answers with (google.rpc.Status plus an FcmError detail).
const cases: ReadonlyArray<MappingCase> = [
  {
    name: "UNREGISTERED (404 NOT_FOUND) → UNREGISTERED",
    reply: fcmError(404, "NOT_FOUND", "Requested entity was not found.", "UNREGISTERED"),
    errorCode: "UNREGISTERED",
    shouldDeactivateToken: true,
    retryable: false,
    errorMessage: "Requested entity was not found."
  },
  {
    name: "INVALID_ARGUMENT about the token → INVALID_TOKEN",
    reply: fcmError(
      400,
      "INVALID_ARGUMENT",
      "The registration token is not a valid FCM registration token",
      "INVALID_ARGUMENT"
    ),
    errorCode: "INVALID_TOKEN",
    shouldDeactivateToken: true,
    retryable: false,
    errorMessage: "The registration token is not a valid FCM registration token"
  },
  {
    name: "any other INVALID_ARGUMENT → INVALID_ARGUMENT",
    reply: fcmError(
      400,
      "INVALID_ARGUMENT",
      "Invalid value at 'message.data[0].value' (TYPE_STRING), 12",
      "INVALID_ARGUMENT"
    ),
    errorCode: "INVALID_ARGUMENT",
    shouldDeactivateToken: false,
    retryable: false,
    errorMessage: "Invalid value at 'message.data[0].value' (TYPE_STRING), 12"
  },
  {
    name: "legacy InvalidRegistration (messaging/invalid-registration-token) → INVALID_TOKEN",
    reply: { status: 400, json: { error: "InvalidRegistration" } },
    errorCode: "INVALID_TOKEN",
    shouldDeactivateToken: true,
    retryable: false,
    errorMessage: /^Invalid registration token provided/
  },
  {
    name: "SENDER_ID_MISMATCH (403 PERMISSION_DENIED) → SENDER_ID_MISMATCH",
    reply: fcmError(403, "PERMISSION_DENIED", "SenderId mismatch", "SENDER_ID_MISMATCH"),
    errorCode: "SENDER_ID_MISMATCH",
    shouldDeactivateToken: true,
    retryable: false,
    errorMessage: "SenderId mismatch"
  },
  {
    name: "a bare PERMISSION_DENIED (missing IAM permission) → AUTH_ERROR, the token is kept",
    reply: fcmError(
      403,
      "PERMISSION_DENIED",
      "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/test-project' (or it may not exist)."
    ),
    errorCode: "AUTH_ERROR",
    shouldDeactivateToken: false,
    retryable: false,
    errorMessage: /^Permission 'cloudmessaging.messages.create' denied/
  },
  {
    name: "QUOTA_EXCEEDED (429 RESOURCE_EXHAUSTED) → QUOTA_EXCEEDED",
    reply: fcmError(
      429,
      "RESOURCE_EXHAUSTED",
      "Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute'",
      "QUOTA_EXCEEDED"
    ),
    errorCode: "QUOTA_EXCEEDED",
    shouldDeactivateToken: false,
    retryable: true,
    errorMessage: "Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute'"
  },
  {
    name: "UNAVAILABLE (503) → UNAVAILABLE, after firebase-admin's own four retries",
    reply: fcmError(503, "UNAVAILABLE", "The service is currently unavailable.", "UNAVAILABLE"),
    errorCode: "UNAVAILABLE",
    shouldDeactivateToken: false,
    retryable: true,
    errorMessage: "The service is currently unavailable.",
    requests: 5
  },
  {
    name: "INTERNAL (500) → INTERNAL",
    reply: fcmError(500, "INTERNAL", "Internal error encountered.", "INTERNAL"),
    errorCode: "INTERNAL",
    shouldDeactivateToken: false,
    retryable: true,
    errorMessage: "Internal error encountered."
  },
  {
    name: "THIRD_PARTY_AUTH_ERROR (401 UNAUTHENTICATED) → AUTH_ERROR",
    reply: fcmError(401, "UNAUTHENTICATED", "Auth error from APNS or Web Push Service", "THIRD_PARTY_AUTH_ERROR"),
    errorCode: "AUTH_ERROR",
    shouldDeactivateToken: false,
    retryable: false,
    errorMessage: "Auth error from APNS or Web Push Service"
  },
  {
    name: "a non-JSON 401 (our credentials refused) → AUTH_ERROR",
    reply: { status: 401, text: "<html><title>401 Unauthorized</title></html>" },
    errorCode: "AUTH_ERROR",
    shouldDeactivateToken: false,
    retryable: false,
    errorMessage: /Raw server response: "<html><title>401 Unauthorized<\/title><\/html>"/
  },
  {
    name: "an unrecognised error code → UNKNOWN",
    reply: fcmError(400, "FAILED_PRECONDITION", "Something new went wrong", "SOMETHING_NEW"),
    errorCode: "UNKNOWN",
    shouldDeactivateToken: false,
    retryable: false,
    errorMessage: /^Something new went wrong Raw server response/
  }
]

describe("FcmGateway with the real firebase-admin against a loopback FCM", () => {
  // The real clock: the time-out is measured against a server that never answers.
  layer(TestLayer, { timeout: "30 seconds", excludeTestServices: true })((it) => {
    it.effect("sends the notification and returns FCM's message name as providerMessageId", () =>
      Effect.gen(function* () {
        const fake = yield* FakeFcmServer
        const gateway = yield* FcmGateway.make()
        const token = freshToken("ok")
        const result = yield* gateway.send(token, notification)

        assert.strictEqual(gateway.name, "fcm")
        assert.isTrue(gateway.configured)
        assert.deepStrictEqual(result, {
          success: true,
          errorCode: null,
          errorMessage: null,
          shouldDeactivateToken: false,
          retryable: false,
          providerMessageId: result.providerMessageId
        })
        assert.match(result.providerMessageId ?? "", /^projects\/test-project\/messages\/\d+$/)

        const requests = fake.requestsFor(token)
        assert.strictEqual(requests.length, 1)
        assert.strictEqual(requests[0]?.method, "POST")
        assert.strictEqual(requests[0]?.path, `/v1/projects/${PROJECT_ID}/messages:send`)
        assert.strictEqual(requests[0]?.authorization, "Bearer test-access-token")
        assert.deepStrictEqual(requests[0]?.body, sentBody(token))
      })
    )

    it.effect(
      "sends the collapse key as android.collapse_key, the Android notification's tag and apns-collapse-id, beside data.notificationId",
      () =>
        Effect.gen(function* () {
          const fake = yield* FakeFcmServer
          const gateway = yield* FcmGateway.make()
          const token = freshToken("collapse")
          const key = "0b6f7c1e-5d0a-4a57-9a55-3d8e2f1c9b10"
          const data = { notificationId: key, templateCode: "DEPOSIT_RECEIVED" }
          assert.isTrue((yield* gateway.send(token, { title: "T", body: "B", data, collapseKey: key })).success)
          // firebase-admin writes FCM's v1 wire names: `collapse_key` under android. The tag is what
          // replaces a notification already shown in Android's drawer; the collapse key only merges
          // messages still waiting at FCM.
          assert.deepStrictEqual(fake.requestsFor(token)[0]?.body, {
            message: {
              token,
              notification: { title: "T", body: "B" },
              data,
              android: { collapse_key: key, notification: { tag: key } },
              apns: { headers: { "apns-collapse-id": key } }
            }
          })
        })
    )

    it.effect("sends no data key when the message has no data", () =>
      Effect.gen(function* () {
        const fake = yield* FakeFcmServer
        const gateway = yield* FcmGateway.make()
        const token = freshToken("nodata")
        const result = yield* gateway.send(token, { title: "T", body: "B" })
        assert.isTrue(result.success)
        assert.deepStrictEqual(fake.requestsFor(token)[0]?.body, {
          message: { token, notification: { title: "T", body: "B" } }
        })
      })
    )

    for (const testCase of cases) {
      it.effect(testCase.name, () =>
        Effect.gen(function* () {
          const fake = yield* FakeFcmServer
          const gateway = yield* FcmGateway.make()
          const token = freshToken(testCase.errorCode.toLowerCase())
          fake.replyTo(token, testCase.reply)

          const result = yield* gateway.send(token, notification)

          assert.isFalse(result.success)
          assert.strictEqual(result.errorCode, testCase.errorCode)
          assert.strictEqual(result.shouldDeactivateToken, testCase.shouldDeactivateToken)
          assert.strictEqual(result.retryable, testCase.retryable)
          assert.isNull(result.providerMessageId)
          if (typeof testCase.errorMessage === "string") assert.strictEqual(result.errorMessage, testCase.errorMessage)
          else assert.match(result.errorMessage ?? "", testCase.errorMessage)

          const requests = fake.requestsFor(token)
          assert.strictEqual(requests.length, testCase.requests ?? 1)
          assert.deepStrictEqual(requests[0]?.body, sentBody(token))
        })
      )
    }

    it.effect("gives up after its timeout when FCM never answers → TIMEOUT", () =>
      Effect.gen(function* () {
        const fake = yield* FakeFcmServer
        const gateway = yield* FcmGateway.make({ timeout: "300 millis" })
        const token = freshToken("hang")
        fake.replyTo(token, "hang")

        const started = Date.now()
        const result = yield* gateway.send(token, notification)
        const elapsed = Date.now() - started

        assert.strictEqual(result.errorCode, "TIMEOUT")
        assert.isTrue(result.retryable)
        assert.isFalse(result.shouldDeactivateToken)
        assert.strictEqual(result.errorMessage, "FCM did not answer within 300ms")
        assert.isAtLeast(elapsed, 290)
        assert.isBelow(elapsed, 5000)
        assert.strictEqual(fake.requestsFor(token).length, 1)
      })
    )
  })
})

describe("FcmGateway without a reachable FCM", () => {
  it.effect("a refused connection → UNAVAILABLE", () =>
    Effect.gen(function* () {
      const { Agent } = yield* Effect.promise(() => import("node:https"))
      const net = yield* Effect.promise(() => import("node:net"))
      // A port that was just free: connecting to it is refused.
      const closedPort = yield* Effect.promise(
        () =>
          new Promise<number>((resolve) => {
            const probe = net.createServer().listen(0, "127.0.0.1", () => {
              const { port } = probe.address() as { port: number }
              probe.close(() => resolve(port))
            })
          })
      )
      class RefusedAgent extends Agent {
        override createConnection() {
          return net.connect({ host: "127.0.0.1", port: closedPort })
        }
      }
      const result = yield* Effect.flatMap(FcmGateway.make(), (gateway) =>
        gateway.send("fcm-refused", notification)
      ).pipe(Effect.provide(FcmClient.layer({ projectId: PROJECT_ID, credential, httpAgent: new RefusedAgent() })))
      assert.strictEqual(result.errorCode, "UNAVAILABLE")
      assert.isTrue(result.retryable)
      assert.match(result.errorMessage ?? "", /ECONNREFUSED/)
    })
  )
})

describe("FcmClient from a service-account file", () => {
  it.effect("reads the project id and builds a client", () =>
    Effect.gen(function* () {
      const certificates = yield* makeTestCertificates
      const projectId = yield* FcmClient.useSync((client) => client.projectId).pipe(
        Effect.provide(FcmClient.layer({ serviceAccountPath: certificates.serviceAccountPath }))
      )
      assert.strictEqual(projectId, "from-file")
    })
  )

  it.effect("fails to start on a malformed or missing file", () =>
    Effect.gen(function* () {
      const certificates = yield* makeTestCertificates
      const path = join(certificates.dir, "malformed.json")
      writeFileSync(path, JSON.stringify({ project_id: "x" }))
      const malformed = yield* FcmClient.useSync((client) => client).pipe(
        Effect.provide(FcmClient.layer({ serviceAccountPath: path })),
        Effect.flip
      )
      assert.strictEqual(malformed._tag, "FcmClientError")
      assert.match(malformed.message, /^Malformed FCM service account/)

      const missing = yield* FcmClient.useSync((client) => client).pipe(
        Effect.provide(FcmClient.layer({ serviceAccountPath: `${path}.missing` })),
        Effect.flip
      )
      assert.match(missing.message, /^Cannot read the FCM service account/)
    })
  )
})

describe("fcmErrorCode", () => {
  it("maps each firebase-admin code it knows, and nothing else", () => {
    const code = (c: string, message = "", status: string | null = null, fcmErrorCode: string | null = null) =>
      FcmGateway.fcmErrorCode({ code: c, message, status, fcmErrorCode })
    assert.strictEqual(code("messaging/registration-token-not-registered"), "UNREGISTERED")
    assert.strictEqual(code("messaging/invalid-registration-token"), "INVALID_TOKEN")
    assert.strictEqual(
      code("messaging/mismatched-credential", "", "PERMISSION_DENIED", "SENDER_ID_MISMATCH"),
      "SENDER_ID_MISMATCH"
    )
    assert.strictEqual(code("messaging/mismatched-credential", "", "PERMISSION_DENIED", null), "AUTH_ERROR")
    assert.strictEqual(code("messaging/message-rate-exceeded"), "QUOTA_EXCEEDED")
    assert.strictEqual(code("app/network-timeout"), "TIMEOUT")
    assert.strictEqual(code("messaging/installation-id-not-registered"), "UNKNOWN")
    assert.strictEqual(code("something/else"), "UNKNOWN")
    assert.strictEqual(code("constructor"), "UNKNOWN")
  })
})
