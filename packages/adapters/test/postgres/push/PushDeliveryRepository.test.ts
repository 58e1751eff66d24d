import { assert, describe, layer } from "@effect/vitest"
import migration0005 from "@payments-gaming/adapters/postgres/migrations/0005_push_deliveries"
import { TestDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import * as Layers from "@payments-gaming/composition/Layers"
import { failure, type PushDeliveryAttempt, PushDeliveryLog, PushService } from "@payments-gaming/domain/push"
import { PushTesting } from "@payments-gaming/domain/testing"
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

// The migration is run here as well, in case the shared list does not include it yet; it is idempotent.
const Database = Layer.effectDiscard(migration0005).pipe(Layer.provideMerge(TestDatabase))
// Push as the server wires it, through fake gateways.
const TestLayer = Layers.pushWith(PushTesting.layerMemoryGateways).pipe(Layer.provideMerge(Database))

interface Row {
  readonly id: unknown
  readonly token_type: string
  readonly token_hash: string
  readonly token_last8: string
  readonly provider: string
  readonly success: boolean
  readonly error_code: string | null
  readonly error_message: string | null
  readonly provider_message_id: string | null
  readonly latency_ms: number
  readonly created_at: Date
  readonly notification_id: string | null
  readonly device_id: string | null
  readonly collapse_key: string | null
  readonly resend: boolean | null
}

const attempt: PushDeliveryAttempt = {
  tokenType: "APNS",
  tokenHash: "a".repeat(64),
  tokenLast8: "89abcdef",
  provider: "apns",
  success: false,
  errorCode: "UNREGISTERED",
  errorMessage: "Unregistered",
  providerMessageId: null,
  latencyMs: 42,
  at: DateTime.makeUnsafe("2026-03-01T10:20:30.456Z")
}

describe("PushDeliveryRepository", () => {
  layer(TestLayer, { timeout: "60 seconds" })((it) => {
    it.effect("stores an attempt as given", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const log = yield* PushDeliveryLog
        yield* log.record(attempt)
        const rows = yield* sql<Row>`SELECT * FROM push_deliveries WHERE token_hash = ${attempt.tokenHash}`
        assert.strictEqual(rows.length, 1)
        const { id, created_at, attempt_id, ...row } = rows[0]! as Row & { readonly attempt_id: string }
        assert.match(attempt_id, /^[0-9a-f-]{36}$/)
        assert.isNotNull(id)
        assert.strictEqual(created_at.toISOString(), "2026-03-01T10:20:30.456Z")
        assert.deepStrictEqual(row, {
          token_type: "APNS",
          token_hash: attempt.tokenHash,
          token_last8: "89abcdef",
          provider: "apns",
          success: false,
          error_code: "UNREGISTERED",
          error_message: "Unregistered",
          provider_message_id: null,
          latency_ms: 42,
          // A debug push names no notification.
          notification_id: null,
          device_id: null,
          collapse_key: null,
          resend: null
        })
      })
    )

    it.effect("refuses a contradictory attempt with DeliveryNotRecorded", () =>
      Effect.gen(function* () {
        const log = yield* PushDeliveryLog
        const error = yield* log.record({ ...attempt, tokenHash: "b".repeat(64), success: true }).pipe(Effect.flip)
        assert.strictEqual(error._tag, "DeliveryNotRecorded")
      })
    )

    it.effect("PushService records each send, the token only as hash and last 8 characters", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const service = yield* PushService
        const fake = yield* PushTesting.PushGatewaysFake
        const token = "fcm-token-for-the-repository-test-0123456789"
        yield* fake.answerNext("FCM", { result: failure("QUOTA_EXCEEDED", "Quota exceeded") })

        yield* service.send({ tokenType: "FCM", token, title: "T", body: "B" })
        yield* service.send({ tokenType: "FCM", token, title: "T", body: "B" })

        const rows = yield* sql<Row>`SELECT * FROM push_deliveries WHERE token_last8 = ${"23456789"} ORDER BY id`
        assert.deepStrictEqual(
          rows.map((row) => [row.token_type, row.provider, row.success, row.error_code, row.provider_message_id]),
          [
            ["FCM", "fcm", false, "QUOTA_EXCEEDED", null],
            ["FCM", "fcm", true, null, "fake-2"]
          ]
        )
        assert.match(rows[0]!.token_hash, /^[0-9a-f]{64}$/)
        assert.strictEqual(rows[0]!.token_hash, rows[1]!.token_hash)
        const [{ leaks }] = (yield* sql<{ leaks: number }>`
          SELECT count(*)::int AS leaks FROM push_deliveries WHERE row_to_json(push_deliveries)::text LIKE ${`%${token}%`}`) as [
          { leaks: number }
        ]
        assert.strictEqual(leaks, 0)
      })
    )
  })
})
