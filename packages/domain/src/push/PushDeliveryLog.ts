import { Context, type Effect, Schema } from "effect"
import type { DeliveryNotRecorded } from "./Errors.ts"
import { PushErrorCode, TokenType } from "./Model.ts"

/** One send attempt as it is kept: the token only as a SHA-256 hash and its last 8 characters. */
export const PushDeliveryAttempt = Schema.Struct({
  tokenType: TokenType,
  tokenHash: Schema.String.check(Schema.isPattern(/^[0-9a-f]{64}$/)),
  tokenLast8: Schema.String,
  provider: Schema.String,
  success: Schema.Boolean,
  errorCode: Schema.NullOr(PushErrorCode),
  errorMessage: Schema.NullOr(Schema.String),
  providerMessageId: Schema.NullOr(Schema.String),
  latencyMs: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  at: Schema.DateTimeUtc,
  /** The notification and device of an outbox push, its collapse key, and whether it was a resend. */
  notificationId: Schema.optionalKey(Schema.String),
  deviceId: Schema.optionalKey(Schema.String),
  collapseKey: Schema.optionalKey(Schema.String),
  resend: Schema.optionalKey(Schema.Boolean)
})
export type PushDeliveryAttempt = typeof PushDeliveryAttempt.Type

/** Where every push attempt is recorded. */
export class PushDeliveryLog extends Context.Service<
  PushDeliveryLog,
  {
    readonly record: (attempt: PushDeliveryAttempt) => Effect.Effect<void, DeliveryNotRecorded>
  }
>()("@payments-gaming/domain/push/PushDeliveryLog") {}
