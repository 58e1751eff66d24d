import { Schema } from "effect"
import { Outcome } from "../banking/Model.ts"
import { BreakKind, SettlementDate } from "./Model.ts"
import { ReportKind } from "./ReportLine.ts"

/** What each break kind counts; every kind present, zero when none. */
export const BreakCounts = Schema.Struct({
  missing_in_ledger: Schema.Int,
  missing_in_report: Schema.Int,
  amount_mismatch: Schema.Int,
  status_mismatch: Schema.Int
})
export type BreakCounts = typeof BreakCounts.Type

export const noBreaks: BreakCounts = {
  missing_in_ledger: 0,
  missing_in_report: 0,
  amount_mismatch: 0,
  status_mismatch: 0
}

/** `data` of a reconciliation (CONTRACT §7): counts fixed at import, `open`/`resolved` as they are now. */
export const ReconciliationView = Schema.Struct({
  id: Schema.String,
  date: SettlementDate,
  importedAt: Schema.String,
  sha256: Schema.String,
  lines: Schema.Int,
  matched: Schema.Int,
  breaks: Schema.Struct({ open: Schema.Int, resolved: Schema.Int, byKind: BreakCounts })
})
export type ReconciliationView = typeof ReconciliationView.Type

/** A stored reconciliation, as the port returns it. */
export interface Reconciliation {
  readonly id: string
  readonly date: string
  readonly importedAt: Date
  readonly sha256: string
  readonly lines: number
  readonly matched: number
  readonly byKind: BreakCounts
  readonly resolved: number
}

/** The report's line a break names, amounts as the decimal strings the file gave (normalised). */
export const BreakReport = Schema.Struct({
  line: Schema.Int,
  amount: Schema.String,
  fee: Schema.NullOr(Schema.String),
  settledAmount: Schema.NullOr(Schema.String),
  currency: Schema.String,
  accountNumber: Schema.NullOr(Schema.String),
  settledAt: Schema.String
})
export type BreakReport = typeof BreakReport.Type

/** The stored webhook event a break names, as it was at the import. */
export const BreakLedger = Schema.Struct({
  eventId: Schema.String,
  outcome: Outcome,
  amount: Schema.NullOr(Schema.String),
  settledAmount: Schema.NullOr(Schema.String),
  currency: Schema.NullOr(Schema.String),
  accountNumber: Schema.NullOr(Schema.String)
})
export type BreakLedger = typeof BreakLedger.Type

export const ResolveAction = Schema.Literals(["credit", "accept"])
export type ResolveAction = typeof ResolveAction.Type

/** The operator's note on a resolution: 1 to 500 characters. */
export const ResolutionNote = Schema.String.check(Schema.isBetweenLength(1, 500))

/** Body of `POST …/breaks/{breakId}/resolve`. */
export const ResolveRequest = Schema.Struct({ action: ResolveAction, note: ResolutionNote })
export type ResolveRequest = typeof ResolveRequest.Type

export const Resolution = Schema.Struct({
  action: ResolveAction,
  note: Schema.String,
  resolvedAt: Schema.String,
  resolvedBy: Schema.String,
  /** The ledger transaction a `credit` posted (its idempotency key); null for `accept`. */
  transactionId: Schema.NullOr(Schema.String)
})
export type Resolution = typeof Resolution.Type

export const BreakStatus = Schema.Literals(["open", "resolved"])
export type BreakStatus = typeof BreakStatus.Type

/** A break (CONTRACT §7), as stored and as answered. */
export const BreakView = Schema.Struct({
  id: Schema.String,
  kind: BreakKind,
  reference: Schema.String,
  eventKind: ReportKind,
  status: BreakStatus,
  report: Schema.NullOr(BreakReport),
  ledger: Schema.NullOr(BreakLedger),
  resolution: Schema.NullOr(Resolution)
})
export type BreakView = typeof BreakView.Type

/** A break as the port stores and returns it: the view, with its reconciliation and its place in it. */
export interface StoredBreak extends BreakView {
  readonly reconciliationId: string
  /** 1-based order within its reconciliation: the report's lines first in file order, then missing_in_report. */
  readonly ordinal: number
}

export const toReconciliationView = (reconciliation: Reconciliation): ReconciliationView => {
  const total =
    reconciliation.byKind.missing_in_ledger +
    reconciliation.byKind.missing_in_report +
    reconciliation.byKind.amount_mismatch +
    reconciliation.byKind.status_mismatch
  return {
    id: reconciliation.id,
    date: reconciliation.date,
    importedAt: reconciliation.importedAt.toISOString(),
    sha256: reconciliation.sha256,
    lines: reconciliation.lines,
    matched: reconciliation.matched,
    breaks: { open: total - reconciliation.resolved, resolved: reconciliation.resolved, byKind: reconciliation.byKind }
  }
}

export const toBreakView = ({ reconciliationId: _r, ordinal: _o, ...view }: StoredBreak): BreakView => view
