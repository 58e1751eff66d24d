import { BigDecimal } from "effect"
import type { Outcome } from "../banking/Model.ts"
import type { ReportLine } from "./ReportLine.ts"

/**
 * The stored webhook event of a report line's kind and reference, as matching reads it: what the
 * provider told us, and what we did with it. Amounts are exact decimals; a value the event did not
 * carry (a transfer's fee) is null.
 */
export interface StoredEventFacts {
  readonly eventId: string
  readonly outcome: Outcome
  readonly amount: BigDecimal.BigDecimal | null
  readonly settledAmount: BigDecimal.BigDecimal | null
  readonly currency: string | null
  readonly accountNumber: string | null
}

/** What one report line is, against the ledger (CONTRACT §7); everything but `matched` is a break. */
export type LineVerdict =
  | { readonly _tag: "matched" }
  | { readonly _tag: "amount_mismatch"; readonly differences: ReadonlyArray<string> }
  | { readonly _tag: "status_mismatch"; readonly outcome: Outcome }
  | { readonly _tag: "missing_in_ledger" }

/** An event counts as applied when it moved money: a deposit credited, a transfer settled or failed. */
export const isApplied = (outcome: Outcome): boolean => outcome === "processed"

const sameAmount = (a: BigDecimal.BigDecimal | null, b: BigDecimal.BigDecimal | null) =>
  a !== null && b !== null && BigDecimal.equals(a, b)

const text = (value: BigDecimal.BigDecimal | string | null) =>
  value === null ? "none" : typeof value === "string" ? value : BigDecimal.format(value)

/**
 * Compares a line with the stored event of its kind and reference. Amounts are compared as
 * decimals ("100.5" equals "100.50"); a credit must also agree on its settled amount and the
 * account credited, a transfer on its amount and currency only (its fee is the provider's).
 */
export const judgeLine = (line: ReportLine, stored: StoredEventFacts | undefined): LineVerdict => {
  if (stored === undefined) return { _tag: "missing_in_ledger" }
  if (!isApplied(stored.outcome)) return { _tag: "status_mismatch", outcome: stored.outcome }
  const differences: Array<string> = []
  const compare = (
    field: string,
    ours: BigDecimal.BigDecimal | string | null,
    theirs: BigDecimal.BigDecimal | string | null,
    same: boolean
  ) => {
    if (!same) differences.push(`${field}: report ${text(theirs)}, ledger ${text(ours)}`)
  }
  compare("amount", stored.amount, line.amount, sameAmount(stored.amount, line.amount))
  compare("currency", stored.currency, line.currency, stored.currency === line.currency)
  if (line.kind === "virtualaccount.credit") {
    compare(
      "settled_amount",
      stored.settledAmount,
      line.settledAmount,
      sameAmount(stored.settledAmount, line.settledAmount)
    )
    compare("account_number", stored.accountNumber, line.accountNumber, stored.accountNumber === line.accountNumber)
  }
  return differences.length === 0 ? { _tag: "matched" } : { _tag: "amount_mismatch", differences }
}
