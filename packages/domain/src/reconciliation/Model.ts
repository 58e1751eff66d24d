import { Schema } from "effect"

/** The kinds of difference between the provider's report and the ledger (CONTRACT §7). */
export const BreakKind = Schema.Literals([
  "missing_in_ledger",
  "missing_in_report",
  "amount_mismatch",
  "status_mismatch"
])
export type BreakKind = typeof BreakKind.Type

/** The most problems a refused report lists: enough to fix a file, bounded for a file of garbage. */
export const MAX_REPORTED_ERRORS = 100

/** The most lines one report may have (the header not counted). */
export const MAX_REPORT_LINES = 100_000

/** The largest report taken, in bytes: 10 MiB. The HTTP edge refuses a larger body before reading it. */
export const MAX_REPORT_BYTES = 10 * 1024 * 1024

/** The longest value a report's field may hold: four times the longest reference. */
export const MAX_FIELD_LENGTH = 1024

/**
 * The settlement day a report covers, `YYYY-MM-DD` (UTC): a calendar date that exists, so
 * `2026-02-30` is refused rather than rolled over to March.
 */
export const SettlementDate = Schema.String.check(
  Schema.isPattern(/^\d{4}-\d{2}-\d{2}$/, { expected: "a calendar date such as 2026-11-21" }),
  Schema.makeFilter(
    (text: string) => {
      const at = new Date(`${text}T00:00:00Z`)
      return (!Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === text) || "no such calendar date"
    },
    { expected: "a calendar date such as 2026-11-21" }
  )
)
export type SettlementDate = typeof SettlementDate.Type
