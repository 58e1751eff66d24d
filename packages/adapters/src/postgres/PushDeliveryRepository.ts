import { randomUUID } from "node:crypto"
import { DeliveryNotRecorded, type PushDeliveryAttempt, PushDeliveryLog } from "@payments-gaming/domain/push"
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { durably } from "./DurableWrite.ts"

/**
 * The delivery log in the `push_deliveries` table (migrations 0005, 0016). Each attempt is written
 * under an id of its own, so the INSERT can be run again after a dropped connection (`durably`)
 * and still stores the attempt once.
 */
export const layer: Layer.Layer<PushDeliveryLog, never, SqlClient.SqlClient> = Layer.effect(
  PushDeliveryLog,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const record = Effect.fnUntraced(
      function* (attempt: PushDeliveryAttempt) {
        const row = {
          token_type: attempt.tokenType,
          token_hash: attempt.tokenHash,
          token_last8: attempt.tokenLast8,
          provider: attempt.provider,
          success: attempt.success,
          error_code: attempt.errorCode,
          error_message: attempt.errorMessage,
          provider_message_id: attempt.providerMessageId,
          latency_ms: attempt.latencyMs,
          created_at: DateTime.toDateUtc(attempt.at),
          notification_id: attempt.notificationId ?? null,
          device_id: attempt.deviceId ?? null,
          collapse_key: attempt.collapseKey ?? null,
          resend: attempt.resend ?? null,
          attempt_id: randomUUID()
        }
        yield* durably(
          sql`INSERT INTO push_deliveries ${sql.insert(row)} ON CONFLICT (attempt_id) DO NOTHING`,
          "a push delivery"
        )
      },
      Effect.mapError((cause) => new DeliveryNotRecorded({ cause }))
    )

    return PushDeliveryLog.of({ record })
  })
)
