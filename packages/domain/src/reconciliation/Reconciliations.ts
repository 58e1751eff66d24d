import { Context, type Effect, type Option } from "effect"
import type { EventKind, Outcome } from "../banking/Model.ts"
import type { BreakKind } from "./Model.ts"
import type {
  BreakCounts,
  BreakLedger,
  BreakReport,
  BreakStatus,
  Reconciliation,
  Resolution,
  StoredBreak
} from "./Records.ts"
import type { ReportKind } from "./ReportLine.ts"

/** A break as the import writes it (always open). */
export interface NewBreak {
  readonly ordinal: number
  readonly kind: BreakKind
  readonly reference: string
  readonly eventKind: ReportKind
  readonly report: BreakReport | null
  readonly ledger: BreakLedger | null
}

/** A stored webhook event, as matching reads it: the body is decoded by the domain, not the store. */
export interface EventForMatching {
  readonly id: string
  readonly kind: EventKind
  readonly reference: string
  readonly outcome: Outcome
  readonly rawBody: Uint8Array
  readonly receivedAt: Date
}

/** Where a newest-first listing of reconciliations stands: what sorts strictly after it comes next. */
export interface ReconciliationPosition {
  readonly importedAt: Date
  readonly id: string
}

/**
 * Settlement reconciliations and their breaks (tables `reconciliations`, `reconciliation_breaks`),
 * and the reads of the webhook inbox that matching needs. Every method joins the caller's unit of
 * work. The store, not a check-then-insert, keeps one reconciliation per (date, sha256), so two
 * concurrent imports of one file, from any number of processes, make one.
 */
export class Reconciliations extends Context.Service<
  Reconciliations,
  {
    /**
     * Claims (date, sha256) with zero counts, or returns the reconciliation stored under it
     * (`created: false`, nothing written). A concurrent claim of the same pair waits for the first
     * to commit (or roll back) and then answers accordingly.
     */
    create(input: {
      readonly date: string
      readonly sha256: string
      readonly importedAt: Date
    }): Effect.Effect<{ readonly created: boolean; readonly reconciliation: Reconciliation }>
    /** Writes the counts of a reconciliation `create` made, once matching is done. */
    setCounts(
      id: string,
      counts: { readonly lines: number; readonly matched: number; readonly byKind: BreakCounts }
    ): Effect.Effect<Reconciliation>
    /** Writes a batch of breaks (one statement). */
    addBreaks(reconciliationId: string, breaks: ReadonlyArray<NewBreak>): Effect.Effect<void>
    find(id: string): Effect.Effect<Option.Option<Reconciliation>>
    /** Newest first (importedAt, then id, descending), strictly after `after`. */
    list(filter: {
      readonly after?: ReconciliationPosition | undefined
      readonly limit: number
    }): Effect.Effect<ReadonlyArray<Reconciliation>>
    /** A reconciliation's breaks in `ordinal` order, strictly after the ordinal `after`. */
    breaks(filter: {
      readonly reconciliationId: string
      readonly kind?: BreakKind | undefined
      readonly status?: BreakStatus | undefined
      readonly after?: number | undefined
      readonly limit: number
    }): Effect.Effect<ReadonlyArray<StoredBreak>>
    /** The break, held against concurrent resolves until the unit of work ends (SELECT … FOR UPDATE). */
    findBreakForUpdate(reconciliationId: string, breakId: string): Effect.Effect<Option.Option<StoredBreak>>
    /** Marks an open break resolved and counts it in its reconciliation; returns it as stored. */
    resolve(breakId: string, resolution: Resolution): Effect.Effect<StoredBreak>
    /** Open breaks of every reconciliation, by kind: what `reconciliation_breaks_open` shows. */
    readonly openBreaks: Effect.Effect<BreakCounts>
    /**
     * Records, for the import running in this unit of work, the (kind, reference) each line names,
     * and returns the lines whose pair an earlier line (of this call or an earlier one) named, each
     * with that first line. Kept by the store, not in memory, so an import holds one batch whatever
     * the file's size; gone when the unit of work ends (a temporary table on PostgreSQL). Call it
     * inside `UnitOfWork.transaction` only.
     */
    nameLines(
      importId: string,
      lines: ReadonlyArray<{ readonly kind: ReportKind; readonly reference: string; readonly line: number }>
    ): Effect.Effect<ReadonlyArray<{ readonly line: number; readonly firstLine: number }>>
    /**
     * The stored events (never the `conflict` redeliveries) of these (kind, reference) pairs, at
     * most one per pair; pairs with none are left out. A caller asks for a batch at a time.
     */
    storedEvents(
      keys: ReadonlyArray<{ readonly kind: ReportKind; readonly reference: string }>
    ): Effect.Effect<ReadonlyArray<EventForMatching>>
    /**
     * Applied (`processed`) credit and transfer events received at or after `receivedFrom` whose
     * (kind, reference) `nameLines` did not record for `importId` in this unit of work, oldest first
     * (receivedAt, then id) strictly after `after`, `limit` at a time: the candidates for
     * `missing_in_report`. The store leaves the named ones out itself, so the bodies of the events a
     * report names (nearly all of them) are never read twice.
     */
    unnamedAppliedEvents(
      importId: string,
      filter: {
        readonly receivedFrom: Date
        readonly after?: { readonly receivedAt: Date; readonly id: string } | undefined
        readonly limit: number
      }
    ): Effect.Effect<ReadonlyArray<EventForMatching>>
  }
>()("@payments-gaming/domain/reconciliation/Reconciliations") {}
