import { type Redacted, Schema } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { TokenType } from "../push/Model.ts"

/**
 * Where an outbox row stands. `pending` waits for its next attempt (or is being sent under a lease);
 * `sent` reached the provider; `failed` is parked for an operator (attempts used up, or a refusal
 * no retry fixes); `cancelled` will never be sent: its device was deactivated or removed.
 */
export const OutboxStatus = Schema.Literals(["pending", "sent", "failed", "cancelled"])
export type OutboxStatus = typeof OutboxStatus.Type

/** The id of one outbox row: the `notificationId` its push carries. */
export const NotificationId = Schema.String.check(Schema.isUUID(undefined, { message: "id must be a UUID" }))

/** The statuses an operator can send again. */
export const RetryableStatus = Schema.Literals(["failed"])
export type RetryableStatus = typeof RetryableStatus.Type

/** What a notification announces; sent to the app as `data.templateCode` (spec 2.2). */
export const TemplateCode = Schema.Literals(["DEPOSIT_RECEIVED", "SPIN_PRIZE_WON"])
export type TemplateCode = typeof TemplateCode.Type

/** The rendered notification, the same for every device of the user. */
export interface NotificationContent {
  readonly templateCode: TemplateCode
  readonly title: string
  readonly body: string
}

/**
 * A notification decided inside the unit of work of the event it announces. `eventKey` names that
 * event (the ledger transaction's key), so one event makes at most one row per device, however many
 * times it is delivered or replayed.
 */
export interface OutboxEvent {
  readonly eventKey: string
  readonly userId: UserId
  readonly content: NotificationContent
}

/** The device a claimed row goes to, as it is now: `null` when it was removed. */
export interface DeviceAddress {
  readonly deviceId: string
  /** Who the device belongs to now: a token registered by another user moves its device to them. */
  readonly userId: string
  readonly tokenType: TokenType
  /** Never logged; read only to address the push. */
  readonly token: Redacted.Redacted<string>
  readonly active: boolean
}

/** A due row a worker holds under its lease until it records the attempt or releases it. */
export interface ClaimedNotification {
  readonly id: string
  /** The claim this row was taken under: a record or release for another claim changes nothing. */
  readonly claimId: string
  readonly eventKey: string
  readonly userId: UserId
  readonly deviceId: string
  readonly templateCode: TemplateCode
  readonly title: string
  readonly body: string
  /** Attempts made before this one. */
  readonly attempts: number
  /**
   * An earlier send may have reached the provider without its answer being recorded (its worker
   * died or lost the database mid-send, or the provider did not answer in time): a push now may be a
   * duplicate on the wire. It carries the same collapse key, so the device shows it once.
   */
  readonly inDoubt: boolean
  readonly device: DeviceAddress | null
}

/** What an attempt did on the wire, beside its outcome. */
export interface AttemptFacts {
  /** A push left for the provider. */
  readonly pushed: boolean
  /** The provider may have taken it although its answer says otherwise (it timed out). */
  readonly inDoubt: boolean
}

/** What one attempt did to its row. */
export type AttemptOutcome =
  | { readonly _tag: "Sent"; readonly providerMessageId: string }
  | { readonly _tag: "Retry"; readonly delayMillis: number; readonly error: string }
  | { readonly _tag: "Failed"; readonly error: string }
  /** Never to be sent: `attempted` says whether a push went out this time (a dead token) or not. */
  | { readonly _tag: "Cancelled"; readonly reason: string; readonly attempted: boolean }

/** One send of a notification as `push_deliveries` keeps it: the provider's answer and its collapse key. */
export const NotificationSend = Schema.Struct({
  at: Schema.String,
  deviceId: Schema.NullOr(Schema.String),
  provider: Schema.String,
  success: Schema.Boolean,
  errorCode: Schema.NullOr(Schema.String),
  errorMessage: Schema.NullOr(Schema.String),
  providerMessageId: Schema.NullOr(Schema.String),
  collapseKey: Schema.NullOr(Schema.String),
  /** Sent while an earlier send may have reached the provider: possibly a duplicate on the wire. */
  resend: Schema.Boolean
})
export type NotificationSend = typeof NotificationSend.Type

/** A row as operators see it (`notifications list`, `GET /v1/admin/notifications`); no token. */
export const NotificationView = Schema.Struct({
  id: Schema.String,
  eventKey: Schema.String,
  userId: Schema.String,
  deviceId: Schema.String,
  templateCode: TemplateCode,
  title: Schema.String,
  body: Schema.String,
  status: OutboxStatus,
  attempts: Schema.Int,
  nextAttemptAt: Schema.String,
  lastError: Schema.NullOr(Schema.String),
  providerMessageId: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String,
  /** Sends made while an earlier one may have reached the provider (`notification_resends_total`). */
  resends: Schema.Int,
  /** An earlier send may have reached the provider unrecorded; the next send is counted as a resend. */
  inDoubt: Schema.Boolean,
  /** A push left under the current claim and its outcome is not recorded yet (sent-unconfirmed). */
  unconfirmed: Schema.Boolean,
  /** Every send of the notification, oldest first. */
  deliveries: Schema.Array(NotificationSend)
})
export type NotificationView = typeof NotificationView.Type

/** What `retry` did to one row. */
export const RetryResult = Schema.Struct({
  id: Schema.String,
  retried: Schema.Boolean,
  status: OutboxStatus
})
export type RetryResult = typeof RetryResult.Type

/** The outbox at a glance, for the metrics. */
export interface OutboxStats {
  /** Rows waiting to be sent, due or not. */
  readonly depth: number
  /** How long the longest-waiting due row has been due, in seconds; 0 when none is due. */
  readonly oldestDueSeconds: number
}
