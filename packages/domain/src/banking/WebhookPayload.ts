import { Effect, Schema } from "effect"
import { ExactDecimalAmount } from "../money/index.ts"
import { Reference } from "./Model.ts"

/**
 * The core-banking webhook payload of spec 2.7. Types follow the spec exactly; a nullable field may
 * also be left out (read as null), since the provider's omitting an empty field is no reason to
 * refuse money. Extra fields are ignored. Values that decode but break a business rule (a negative
 * amount, a wrong status) are not schema errors: the rules in WebhookRules park such events.
 */
const NullableString = Schema.NullOr(Schema.String).pipe(Schema.withDecodingDefaultKey(Effect.succeed(null)))

const Flag = Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(false)))

export const Source = Schema.Struct({
  bank_name: NullableString,
  account_name: Schema.String,
  account_number: Schema.String
})

export const Receiver = Schema.Struct({
  bank_name: Schema.String,
  account_name: Schema.String,
  account_number: Schema.String
})

const transactionFields = {
  fee: ExactDecimalAmount,
  date: Schema.String,
  type: Schema.String,
  amount: ExactDecimalAmount,
  source: Source,
  status: Schema.String,
  currency: Schema.String,
  receiver: Receiver,
  bank_code: NullableString,
  bank_name: NullableString,
  narration: NullableString,
  reference: Reference,
  session_id: NullableString,
  sender_bank: NullableString,
  account_name: NullableString,
  account_number: Schema.String,
  settled_amount: ExactDecimalAmount,
  transaction_date: NullableString,
  sender_account_name: NullableString,
  sender_account_number: NullableString,
  virtual_account_number: NullableString,
  virtual_account_reference: NullableString
}

/** The flags that classify an event; a missing flag reads as false. */
export const WebhookFlags = Schema.Struct({
  transferFailed: Flag,
  transferSuccess: Flag,
  virtualAccountCredit: Flag
})

const envelopeFields = {
  type: Schema.String,
  event: Schema.String,
  transferFailed: Flag,
  transferSuccess: Flag,
  virtualAccountCredit: Flag,
  virtualAccountNumber: NullableString
}

/** `virtualaccount.credit`: every field of spec 2.7. */
export const CreditPayload = Schema.Struct({
  ...envelopeFields,
  data: Schema.Struct(transactionFields)
})
export type CreditPayload = typeof CreditPayload.Type

/** `transfer.success` / `transfer.failed`: the credit's shape, with `fee` and `settled_amount` optional. */
export const TransferPayload = Schema.Struct({
  ...envelopeFields,
  data: Schema.Struct({
    ...transactionFields,
    fee: Schema.optionalKey(ExactDecimalAmount),
    settled_amount: Schema.optionalKey(ExactDecimalAmount)
  })
})
export type TransferPayload = typeof TransferPayload.Type

/**
 * An event that sets no flag is stored and acknowledged but never acted on, so only what
 * deduplication needs (`data.reference`) is required of it: an unknown kind of notification must
 * not be refused for a shape nobody reads.
 */
export const IgnoredPayload = Schema.Struct({
  ...envelopeFields,
  data: Schema.Struct({ reference: Reference })
})
export type IgnoredPayload = typeof IgnoredPayload.Type
