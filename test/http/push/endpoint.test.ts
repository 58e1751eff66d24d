import { assert, describe } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { request, TEST_ENV, tokenFor, withTestServer } from "../../support/TestServer.ts"

const message = {
  tokenType: "FCM",
  token: "fcm-device-token-0123456789",
  title: "Hello",
  body: "World",
  data: { notificationId: "n-1", templateCode: "WELCOME" }
}
const push = (options: { body?: unknown; token?: string; key?: string | undefined }) =>
  request("/v1/debug/push-direct", {
    method: "POST",
    body: options.body ?? message,
    ...(options.token === undefined ? {} : { token: options.token }),
    headers: options.key === undefined ? {} : { "x-internal-key": options.key }
  })

describe("POST /v1/debug/push-direct", () => {
  withTestServer("60 seconds")((it) => {
    it.effect("sends through the development sink and answers the bare push result", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor("ops-1")
        const response = yield* push({ token, key: TEST_ENV.INTERNAL_API_KEY })
        assert.strictEqual(response.status, 200)
        assert.deepStrictEqual(Object.keys(response.json), [
          "success",
          "errorCode",
          "errorMessage",
          "shouldDeactivateToken",
          "retryable",
          "providerMessageId"
        ])
        assert.strictEqual(response.json.success, true)
        assert.isNull(response.json.errorCode)
        assert.isNull(response.json.errorMessage)
        assert.isFalse(response.json.shouldDeactivateToken)
        assert.isFalse(response.json.retryable)
        assert.match(response.json.providerMessageId, /^local-[0-9a-f-]{36}$/)
      })
    )

    it.effect("records the attempt with the token's hash and last 8 characters, never the token", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor("ops-1")
        const deviceToken = "record-me-device-token-ABCDEFGH"
        yield* push({ token, key: TEST_ENV.INTERNAL_API_KEY, body: { ...message, token: deviceToken } })
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ tokenLast8: string; tokenHash: string; success: boolean }>`
          SELECT token_last8 AS "tokenLast8", token_hash AS "tokenHash", success FROM push_deliveries
          WHERE token_last8 = 'ABCDEFGH'`
        assert.strictEqual(rows.length, 1)
        assert.strictEqual(rows[0]?.success, true)
        assert.notInclude(JSON.stringify(rows), deviceToken)
      })
    )

    it.effect("401 without a bearer token, even with the right internal key", () =>
      Effect.gen(function* () {
        const response = yield* push({ key: TEST_ENV.INTERNAL_API_KEY })
        assert.strictEqual(response.status, 401)
        assert.strictEqual(response.json.success, false)
        assert.isNull(response.json.data)
      })
    )

    it.effect("401 with an expired or foreign token", () =>
      Effect.gen(function* () {
        const expired = yield* tokenFor("ops-1", [], -120)
        assert.strictEqual((yield* push({ token: expired, key: TEST_ENV.INTERNAL_API_KEY })).status, 401)
        assert.strictEqual((yield* push({ token: "not.a.jwt", key: TEST_ENV.INTERNAL_API_KEY })).status, 401)
      })
    )

    it.effect("403 with a wrong or missing X-Internal-Key", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor("ops-1")
        const wrong = yield* push({ token, key: "not-the-key" })
        assert.strictEqual(wrong.status, 403)
        assert.strictEqual(wrong.json.message, "Missing or wrong X-Internal-Key")
        const missing = yield* push({ token })
        assert.strictEqual(missing.status, 403)
      })
    )

    it.effect("400 for an unknown tokenType, naming the field", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor("ops-1")
        const response = yield* push({ token, key: TEST_ENV.INTERNAL_API_KEY, body: { ...message, tokenType: "WEB" } })
        assert.strictEqual(response.status, 400)
        assert.isTrue(response.json.errors.some((issue: { path: string }) => issue.path === "tokenType"))
      })
    )

    it.effect("400 for a notification over the 4096-byte provider limit", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor("ops-1")
        for (const tokenType of ["FCM", "APNS"]) {
          const response = yield* push({
            token,
            key: TEST_ENV.INTERNAL_API_KEY,
            body: { ...message, tokenType, token: "a1b2c3d4", body: "x".repeat(4100) }
          })
          assert.strictEqual(response.status, 400)
          assert.strictEqual(response.json.errors[0].path, "body")
        }
      })
    )
  })
})
