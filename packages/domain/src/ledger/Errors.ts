import { Schema } from "effect"

/** A ledger transaction that must never be posted: unbalanced, too few postings, a bad amount. */
export class InvalidTransaction extends Schema.TaggedError<InvalidTransaction>()("InvalidTransaction", {
  key: Schema.String,
  message: Schema.String
}) {}

/** Posting would take a user account below zero. Nothing was posted. */
export class InsufficientFunds extends Schema.TaggedError<InsufficientFunds>()("InsufficientFunds", {
  accountId: Schema.String,
  unit: Schema.String,
  available: Schema.String,
  requested: Schema.String,
  message: Schema.String
}) {}

/** A statement asked for a period that holds no instant: `from` at or after `to`. */
export class InvalidStatementPeriod extends Schema.TaggedError<InvalidStatementPeriod>()("InvalidStatementPeriod", {
  message: Schema.String
}) {}

/** A statement cursor that is not one this user's statement handed out (another user's, or forged). */
export class InvalidStatementCursor extends Schema.TaggedError<InvalidStatementCursor>()("InvalidStatementCursor", {
  message: Schema.String
}) {}
