import { DeliveryNotRecorded, type PushDeliveryAttempt, PushDeliveryLog } from "@payments-gaming/domain/push"
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/** The delivery log in the `push_deliveries` table (migration 0005). */
export const layer: Layer.Layer<PushDeliveryLog, never, SqlClient.SqlClient> = Layer.effect(
  PushDeliveryLog,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const record = Effect.fnUntraced(
      function* (attempt: PushDeliveryAttempt) {
        yield* sql`INSERT INTO push_deliveries ${sql.insert({
          token_type: attempt.tokenType,
          token_hash: attempt.tokenHash,
          token_last8: attempt.tokenLast8,
          provider: attempt.provider,
          success: attempt.success,
          error_code: attempt.errorCode,
          error_message: attempt.errorMessage,
          provider_message_id: attempt.providerMessageId,
          latency_ms: attempt.latencyMs,
          created_at: DateTime.toDateUtc(attempt.at)
        })}`
      },
      Effect.mapError((cause) => new DeliveryNotRecorded({ cause }))
    )

    return PushDeliveryLog.of({ record })
  })
)
