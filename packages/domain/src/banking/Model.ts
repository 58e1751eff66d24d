import { type BigDecimal, Schema } from "effect"
import { UserId } from "../auth/Model.ts"
import { Currency, DecimalAmount } from "../money/index.ts"
import { wellFormed, withoutNul } from "../text/WellFormed.ts"

/** How a webhook is classified by its flags; `ignored` when it sets none. */
export const EventKind = Schema.Literals(["virtualaccount.credit", "transfer.success", "transfer.failed", "ignored"])
export type EventKind = typeof EventKind.Type

/**
 * What became of a stored event. `received` exists only inside the transaction that stores it:
 * the same transaction replaces it with the final outcome before committing. `conflict` is a
 * redelivery of a stored event's (kind, reference) whose money-relevant fields differ from it
 * (WebhookConflict.ts): kept for an operator to see, never applied and never replayable.
 */
export const Outcome = Schema.Literals(["received", "processed", "ignored", "rejected", "unmatched", "conflict"])
export type Outcome = typeof Outcome.Type

/** Outcomes an operator can replay after fixing the cause. */
export const ReplayableOutcome = Schema.Literals(["unmatched", "rejected"])
export type ReplayableOutcome = typeof ReplayableOutcome.Type

/** Longest reference taken; Movements turns one into ledger keys that still fit the ledger's bound. */
export const MAX_REFERENCE_LENGTH = 256

/**
 * A provider reference (webhook `data.reference`, outbound transfer reference). A lone surrogate
 * (`"\ud800"`, valid JSON) is refused: PostgreSQL would store it as U+FFFD, so two different
 * references could collide on one stored key.
 */
export const Reference = Schema.String.check(Schema.isBetweenLength(1, MAX_REFERENCE_LENGTH), wellFormed, withoutNul)

/** A virtual account number as the provider writes it (NUBAN digits, or an alphanumeric id). */
export const AccountNumber = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9-]{1,64}$/, { expected: "1 to 64 letters, digits or dashes" })
)

/** A verified delivery as it is first stored, before it is applied. */
export interface NewWebhookEvent {
  readonly kind: EventKind
  readonly reference: string
  readonly dedupKey: string
  readonly rawBody: Uint8Array
  readonly signature: string
  readonly receivedAt: Date
}

export interface WebhookEvent extends NewWebhookEvent {
  readonly id: string
  readonly outcome: Outcome
  readonly reason: string | null
  readonly processedAt: Date | null
}

export interface DeadLetter {
  readonly id: string
  readonly rawBody: Uint8Array
  readonly signature: string
  readonly receivedAt: Date
  readonly error: string
}

export interface VirtualAccount {
  readonly accountNumber: string
  readonly userId: UserId
  readonly currency: Currency
  readonly accountName: string | null
  readonly bankName: string | null
  readonly createdAt: Date
}

export const TransferStatus = Schema.Literals(["PENDING", "SETTLED", "FAILED"])
export type TransferStatus = typeof TransferStatus.Type

export interface Transfer {
  readonly reference: string
  readonly userId: UserId
  readonly currency: Currency
  /** The held amount, exact at the currency's scale. */
  readonly amount: BigDecimal.BigDecimal
  readonly status: TransferStatus
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** Body of `PUT /v1/admin/virtual-accounts/{accountNumber}`. */
export const LinkVirtualAccountRequest = Schema.Struct({
  userId: UserId,
  currency: Currency,
  accountName: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(200))),
  bankName: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(200)))
})
export type LinkVirtualAccountRequest = typeof LinkVirtualAccountRequest.Type

/** Body of `POST /v1/admin/transfers`; `amount` "2500.00" or 2500. */
export const RecordTransferRequest = Schema.Struct({
  reference: Reference,
  userId: UserId,
  amount: DecimalAmount,
  currency: Currency
})
export type RecordTransferRequest = typeof RecordTransferRequest.Type

export const VirtualAccountView = Schema.Struct({
  accountNumber: Schema.String,
  userId: Schema.String,
  currency: Currency,
  accountName: Schema.NullOr(Schema.String),
  bankName: Schema.NullOr(Schema.String),
  createdAt: Schema.String
})
export type VirtualAccountView = typeof VirtualAccountView.Type

export const TransferView = Schema.Struct({
  reference: Schema.String,
  userId: Schema.String,
  amount: Schema.String,
  currency: Currency,
  status: TransferStatus,
  createdAt: Schema.String,
  updatedAt: Schema.String
})
export type TransferView = typeof TransferView.Type

/** `data` of `GET /v1/wallet`: amounts as decimal strings at their currency's scale. */
export const WalletView = Schema.Struct({
  coinBalance: Schema.Int,
  balances: Schema.Array(Schema.Struct({ currency: Currency, available: Schema.String }))
})
export type WalletView = typeof WalletView.Type

/**
 * What `receive` did with a delivery; `duplicate` for a redelivery of a stored event that agrees
 * with it (nothing stored), `conflict` for one that does not (stored as its own `conflict` event).
 */
export const ReceiveResult = Schema.Struct({
  eventId: Schema.String,
  kind: EventKind,
  reference: Schema.String,
  outcome: Schema.Literals(["processed", "ignored", "rejected", "unmatched", "duplicate", "conflict"]),
  reason: Schema.NullOr(Schema.String)
})
export type ReceiveResult = typeof ReceiveResult.Type

/** What `replay` did: `replayed` false when the event was not in a replayable state. */
export const ReplayResult = Schema.Struct({
  eventId: Schema.String,
  kind: EventKind,
  reference: Schema.String,
  replayed: Schema.Boolean,
  outcome: Outcome,
  reason: Schema.NullOr(Schema.String)
})
export type ReplayResult = typeof ReplayResult.Type

/** One problem found while reading a webhook body; `path` is dotted ("data.amount"), "" for the root. */
export const WebhookIssue = Schema.Struct({ path: Schema.String, message: Schema.String })
export type WebhookIssue = typeof WebhookIssue.Type
