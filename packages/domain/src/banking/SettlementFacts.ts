import { type BigDecimal, Effect, Result, Schema } from "effect"
import { ExactDecimalAmount } from "../money/index.ts"
import type { EventKind } from "./Model.ts"
import { parseJsonExact } from "./parseJsonExact.ts"
import { creditAccountNumber } from "./WebhookRules.ts"

/** What a settlement report line is compared with, as a stored event says it. */
export interface SettlementFacts {
  readonly amount: BigDecimal.BigDecimal
  /** Absent from a transfer that did not give it. */
  readonly settledAmount: BigDecimal.BigDecimal | null
  readonly currency: string
  /** A credit's virtual account (as `creditAccountNumber` picks it); a transfer's `account_number`. */
  readonly accountNumber: string
  /** `data.date`, as the provider wrote it. */
  readonly date: string
}

const NullableString = Schema.NullOr(Schema.String).pipe(Schema.withDecodingDefaultKey(Effect.succeed(null)))

/**
 * Only the fields a report is compared with. A stored event was decoded whole (WebhookDecoder.ts)
 * when it arrived; reconciliation reads these few of up to a hundred thousand of them per import,
 * and the whole payload's schema (88 nodes for a credit) cost a fifth of an import's CPU.
 */
const FactsPayload = Schema.Struct({
  virtualAccountNumber: NullableString,
  data: Schema.Struct({
    amount: ExactDecimalAmount,
    settled_amount: Schema.optionalKey(ExactDecimalAmount),
    currency: Schema.String,
    account_number: Schema.String,
    virtual_account_number: NullableString,
    date: Schema.String
  })
})
const decodeFacts = Schema.decodeUnknownResult(FactsPayload)

/**
 * The settlement facts of a stored event of `kind` from its exact body (amounts exact, never
 * through a float), or `undefined` for an ignored event or a body that no longer reads.
 */
export const settlementFacts = (kind: EventKind, rawBody: Uint8Array): SettlementFacts | undefined => {
  if (kind === "ignored") return undefined
  const json = parseJsonExact(rawBody)
  if (Result.isFailure(json)) return undefined
  const decoded = decodeFacts(json.success)
  if (Result.isFailure(decoded)) return undefined
  const { data } = decoded.success
  return {
    amount: data.amount,
    settledAmount: data.settled_amount ?? null,
    currency: data.currency,
    accountNumber: kind === "virtualaccount.credit" ? creditAccountNumber(decoded.success) : data.account_number,
    date: data.date
  }
}
