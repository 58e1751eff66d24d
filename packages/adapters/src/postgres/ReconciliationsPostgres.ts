import { EventKind, Outcome } from "@payments-gaming/domain/banking"
import {
  BreakKind,
  BreakLedger,
  BreakReport,
  BreakStatus,
  type EventForMatching,
  type NewBreak,
  type Reconciliation,
  Reconciliations,
  ReportKind,
  ResolveAction,
  type StoredBreak
} from "@payments-gaming/domain/reconciliation"
import { Array as Arr, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { rowSchema } from "./RowSchema.ts"

/** A `reconciliations` row (`SELECT *`). */
const ReconciliationRow = rowSchema(
  Schema.Struct({
    id: Schema.String,
    settlement_date: Schema.String,
    sha256: Schema.String,
    imported_at: Schema.Date,
    lines: Schema.Int,
    matched: Schema.Int,
    missing_in_ledger: Schema.Int,
    missing_in_report: Schema.Int,
    amount_mismatch: Schema.Int,
    status_mismatch: Schema.Int,
    resolved: Schema.Int
  }),
  (row): Reconciliation => ({
    id: row.id,
    date: row.settlement_date,
    sha256: row.sha256,
    importedAt: row.imported_at,
    lines: row.lines,
    matched: row.matched,
    byKind: {
      missing_in_ledger: row.missing_in_ledger,
      missing_in_report: row.missing_in_report,
      amount_mismatch: row.amount_mismatch,
      status_mismatch: row.status_mismatch
    },
    resolved: row.resolved
  })
)

/** A `reconciliation_breaks` row (`SELECT *`); the jsonb snapshots are checked like any column. */
const BreakRow = rowSchema(
  Schema.Struct({
    id: Schema.String,
    reconciliation_id: Schema.String,
    ordinal: Schema.Int,
    kind: BreakKind,
    reference: Schema.String,
    event_kind: ReportKind,
    status: BreakStatus,
    report: Schema.NullOr(BreakReport),
    ledger: Schema.NullOr(BreakLedger),
    resolution_action: Schema.NullOr(ResolveAction),
    resolution_note: Schema.NullOr(Schema.String),
    resolved_at: Schema.NullOr(Schema.Date),
    resolved_by: Schema.NullOr(Schema.String),
    transaction_id: Schema.NullOr(Schema.String)
  }),
  (row): StoredBreak => ({
    id: row.id,
    reconciliationId: row.reconciliation_id,
    ordinal: row.ordinal,
    kind: row.kind,
    reference: row.reference,
    eventKind: row.event_kind,
    status: row.status,
    report: row.report,
    ledger: row.ledger,
    resolution:
      row.resolution_action === null || row.resolved_at === null
        ? null
        : {
            action: row.resolution_action,
            note: row.resolution_note ?? "",
            resolvedAt: row.resolved_at.toISOString(),
            resolvedBy: row.resolved_by ?? "",
            transactionId: row.transaction_id
          }
  })
)

/** A `webhook_events` row as matching reads it: no signature, no dedup key. */
const EventRow = rowSchema(
  Schema.Struct({
    id: Schema.String,
    kind: EventKind,
    reference: Schema.String,
    outcome: Outcome,
    raw_body: Schema.Uint8Array,
    received_at: Schema.Date
  }),
  (row): EventForMatching => ({
    id: row.id,
    kind: row.kind,
    reference: row.reference,
    outcome: row.outcome,
    rawBody: row.raw_body,
    receivedAt: row.received_at
  })
)

const decodeReconciliations = Schema.decodeUnknownEffect(Schema.Array(ReconciliationRow))
const decodeBreaks = Schema.decodeUnknownEffect(Schema.Array(BreakRow))
const decodeEvents = Schema.decodeUnknownEffect(Schema.Array(EventRow))

const one = <A>(rows: ReadonlyArray<A>): A => {
  const [row] = rows
  if (row === undefined) throw new Error("the statement returned no row")
  return row
}

/**
 * Reconciliations on PostgreSQL (migration 0020). Writes only its own two tables; reads the
 * webhook inbox's `webhook_events`, never writes it, and never touches the ledger's tables (a
 * credit is posted through the `Ledger` port by the use case). Every method joins the ambient
 * transaction (`UnitOfWork`). Database failures are defects, as in every adapter here.
 */
export const layer = Layer.effect(
  Reconciliations,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const create = Effect.fn("Reconciliations.create")(function* (input: {
      readonly date: string
      readonly sha256: string
      readonly importedAt: Date
    }) {
      // A concurrent insert of the same pair waits here for the other transaction: after its
      // commit this one inserts nothing, and the SELECT (a new snapshot) finds its row.
      const inserted = yield* sql`INSERT INTO reconciliations (settlement_date, sha256, imported_at)
        VALUES (${input.date}, ${input.sha256}, ${input.importedAt})
        ON CONFLICT (settlement_date, sha256) DO NOTHING
        RETURNING *`.pipe(Effect.flatMap(decodeReconciliations))
      if (inserted.length > 0) return { created: true, reconciliation: one(inserted) }
      const existing = yield* sql`SELECT * FROM reconciliations
        WHERE settlement_date = ${input.date} AND sha256 = ${input.sha256}`.pipe(Effect.flatMap(decodeReconciliations))
      return { created: false, reconciliation: one(existing) }
    }, Effect.orDie)

    const setCounts = Effect.fn("Reconciliations.setCounts")(function* (
      id: string,
      counts: Parameters<Reconciliations["Service"]["setCounts"]>[1]
    ) {
      const rows = yield* sql`UPDATE reconciliations SET lines = ${counts.lines}, matched = ${counts.matched},
          missing_in_ledger = ${counts.byKind.missing_in_ledger},
          missing_in_report = ${counts.byKind.missing_in_report},
          amount_mismatch = ${counts.byKind.amount_mismatch},
          status_mismatch = ${counts.byKind.status_mismatch}
        WHERE id = ${id}::uuid RETURNING *`.pipe(Effect.flatMap(decodeReconciliations))
      return one(rows)
    }, Effect.orDie)

    // One statement per batch: a thousand rows of seven values stay far below the 65,535
    // parameters a statement may have.
    const addBreaks = (reconciliationId: string, breaks: ReadonlyArray<NewBreak>) => {
      const rows = breaks.map(
        (added): Record<string, unknown> => ({
          reconciliation_id: reconciliationId,
          ordinal: added.ordinal,
          kind: added.kind,
          reference: added.reference,
          event_kind: added.eventKind,
          report: added.report === null ? null : JSON.stringify(added.report),
          ledger: added.ledger === null ? null : JSON.stringify(added.ledger)
        })
      )
      return Arr.isReadonlyArrayNonEmpty(rows)
        ? sql`INSERT INTO reconciliation_breaks ${sql.insert(rows)}`.pipe(
            Effect.asVoid,
            Effect.orDie,
            Effect.withSpan("Reconciliations.addBreaks")
          )
        : Effect.void
    }

    const find = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: ReconciliationRow,
      execute: (id) => sql`SELECT * FROM reconciliations WHERE id = ${id}::uuid`
    })

    const list = Effect.fn("Reconciliations.list")(function* (filter: {
      readonly after?: { readonly importedAt: Date; readonly id: string } | undefined
      readonly limit: number
    }) {
      const after = filter.after
      return yield* (
        after === undefined
          ? sql`SELECT * FROM reconciliations ORDER BY imported_at DESC, id DESC LIMIT ${filter.limit}`
          : sql`SELECT * FROM reconciliations WHERE (imported_at, id) < (${after.importedAt}, ${after.id}::uuid)
              ORDER BY imported_at DESC, id DESC LIMIT ${filter.limit}`
      ).pipe(Effect.flatMap(decodeReconciliations))
    }, Effect.orDie)

    const breaks = Effect.fn("Reconciliations.breaks")(function* (
      filter: Parameters<Reconciliations["Service"]["breaks"]>[0]
    ) {
      const conditions = [
        sql`reconciliation_id = ${filter.reconciliationId}::uuid`,
        sql`ordinal > ${filter.after ?? 0}`,
        ...(filter.kind === undefined ? [] : [sql`kind = ${filter.kind}`]),
        ...(filter.status === undefined ? [] : [sql`status = ${filter.status}`])
      ]
      return yield* sql`SELECT * FROM reconciliation_breaks WHERE ${sql.and(conditions)}
        ORDER BY ordinal LIMIT ${filter.limit}`.pipe(Effect.flatMap(decodeBreaks))
    }, Effect.orDie)

    const findBreakForUpdate = Effect.fn("Reconciliations.findBreakForUpdate")(function* (
      reconciliationId: string,
      breakId: string
    ) {
      const rows = yield* sql`SELECT * FROM reconciliation_breaks
        WHERE id = ${breakId}::uuid AND reconciliation_id = ${reconciliationId}::uuid FOR UPDATE`.pipe(
        Effect.flatMap(decodeBreaks)
      )
      return Option.fromUndefinedOr(rows[0])
    }, Effect.orDie)

    const resolve = Effect.fn("Reconciliations.resolve")(function* (
      breakId: string,
      resolution: Parameters<Reconciliations["Service"]["resolve"]>[1]
    ) {
      const rows = yield* sql`WITH resolved AS (
          UPDATE reconciliation_breaks SET status = 'resolved', resolution_action = ${resolution.action},
            resolution_note = ${resolution.note}, resolved_at = ${new Date(resolution.resolvedAt)},
            resolved_by = ${resolution.resolvedBy}, transaction_id = ${resolution.transactionId}
          WHERE id = ${breakId}::uuid AND status = 'open'
          RETURNING *
        ), counted AS (
          UPDATE reconciliations SET resolved = resolved + 1
          WHERE id = (SELECT reconciliation_id FROM resolved)
        )
        SELECT * FROM resolved`.pipe(Effect.flatMap(decodeBreaks))
      return one(rows)
    }, Effect.orDie)

    const openBreaks = Effect.gen(function* () {
      const rows = yield* sql<{ readonly kind: string; readonly n: number }>`
        SELECT kind, count(*)::int AS n FROM reconciliation_breaks WHERE status = 'open' GROUP BY kind`
      const counts = { missing_in_ledger: 0, missing_in_report: 0, amount_mismatch: 0, status_mismatch: 0 }
      for (const row of rows) if (row.kind in counts) counts[row.kind as keyof typeof counts] = Number(row.n)
      return counts
    }).pipe(Effect.orDie, Effect.withSpan("Reconciliations.openBreaks"))

    // An import's names live in a temporary table of its own transaction (ON COMMIT DROP): on the
    // transaction's connection only, gone at commit or rollback, never in a backup or the WAL.
    const scratch = sql`CREATE TEMP TABLE IF NOT EXISTS reconciliation_names (
        import_id uuid NOT NULL,
        kind text NOT NULL,
        reference text NOT NULL,
        line integer NOT NULL,
        PRIMARY KEY (import_id, kind, reference)
      ) ON COMMIT DROP`

    const nameLines = Effect.fn("Reconciliations.nameLines")(function* (
      importId: string,
      lines: ReadonlyArray<{ readonly kind: ReportKind; readonly reference: string; readonly line: number }>
    ) {
      yield* scratch
      const keyOf = (kind: string, reference: string) => `${kind}\u0000${reference}`
      const firstInBatch = new Map<string, number>()
      const fresh = { kinds: [] as Array<string>, references: [] as Array<string>, lines: [] as Array<number> }
      for (const { kind, reference, line } of lines) {
        if (firstInBatch.has(keyOf(kind, reference))) continue
        firstInBatch.set(keyOf(kind, reference), line)
        fresh.kinds.push(kind)
        fresh.references.push(reference)
        fresh.lines.push(line)
      }
      // As arrays (unnest): one text for every batch, a plan PostgreSQL keeps, four parameters
      // rather than four per line.
      const inserted =
        fresh.kinds.length > 0
          ? yield* sql<{ readonly kind: string; readonly reference: string }>`
            INSERT INTO reconciliation_names (import_id, kind, reference, line)
            SELECT ${importId}::uuid, v.kind, v.reference, v.line
            FROM unnest(${fresh.kinds}::text[], ${fresh.references}::text[], ${fresh.lines}::int[]) AS v (kind, reference, line)
            ON CONFLICT DO NOTHING RETURNING kind, reference`
          : []
      // The first line of a pair an earlier batch named is that batch's; of the others, this one's.
      const firstLines = new Map(firstInBatch)
      if (inserted.length < fresh.kinds.length) {
        const added = new Set(inserted.map(({ kind, reference }) => keyOf(kind, reference)))
        const earlier = lines.filter(({ kind, reference }) => !added.has(keyOf(kind, reference)))
        const rows = yield* sql<{ readonly kind: string; readonly reference: string; readonly line: number }>`
          SELECT kind, reference, line FROM reconciliation_names
          WHERE import_id = ${importId}::uuid AND reference = ANY(${[...new Set(earlier.map((one) => one.reference))]}::text[])`
        for (const row of rows) {
          const key = keyOf(row.kind, row.reference)
          if (!added.has(key) && firstInBatch.has(key)) firstLines.set(key, row.line)
        }
      }
      return lines.flatMap(({ kind, reference, line }) => {
        const first = firstLines.get(keyOf(kind, reference)) ?? line
        return first === line ? [] : [{ line, firstLine: first }]
      })
    }, Effect.orDie)

    const storedEvents = Effect.fn("Reconciliations.storedEvents")(function* (
      keys: ReadonlyArray<{ readonly kind: ReportKind; readonly reference: string }>
    ) {
      if (keys.length === 0) return []
      // The exact pairs, as arrays, on the (kind, reference) unique index.
      return yield* sql`SELECT e.id, e.kind, e.reference, e.outcome, e.raw_body, e.received_at
        FROM unnest(${keys.map(({ kind }) => kind)}::text[], ${keys.map(({ reference }) => reference)}::text[]) AS k (kind, reference)
        JOIN webhook_events e ON e.kind = k.kind AND e.reference = k.reference AND e.outcome <> 'conflict'`.pipe(
        Effect.flatMap(decodeEvents)
      )
    }, Effect.orDie)

    const unnamedAppliedEvents = Effect.fn("Reconciliations.unnamedAppliedEvents")(function* (
      importId: string,
      filter: Parameters<Reconciliations["Service"]["unnamedAppliedEvents"]>[1]
    ) {
      yield* scratch
      const after = filter.after
      // On webhook_events_outcome_idx (outcome, received_at, id); the named pairs are left out here,
      // against the import's own names, so their bodies never leave the database.
      const unnamed = sql`NOT EXISTS (SELECT 1 FROM reconciliation_names n
        WHERE n.import_id = ${importId}::uuid AND n.kind = e.kind AND n.reference = e.reference)`
      return yield* (
        after === undefined
          ? sql`SELECT e.id, e.kind, e.reference, e.outcome, e.raw_body, e.received_at FROM webhook_events e
              WHERE e.outcome = 'processed' AND e.received_at >= ${filter.receivedFrom} AND e.kind <> 'ignored'
                AND ${unnamed}
              ORDER BY e.received_at, e.id LIMIT ${filter.limit}`
          : sql`SELECT e.id, e.kind, e.reference, e.outcome, e.raw_body, e.received_at FROM webhook_events e
              WHERE e.outcome = 'processed' AND e.received_at >= ${filter.receivedFrom} AND e.kind <> 'ignored'
                AND (e.received_at, e.id) > (${after.receivedAt}, ${after.id}::uuid) AND ${unnamed}
              ORDER BY e.received_at, e.id LIMIT ${filter.limit}`
      ).pipe(Effect.flatMap(decodeEvents))
    }, Effect.orDie)

    return Reconciliations.of({
      create,
      setCounts,
      addBreaks,
      find: (id) => find(id).pipe(Effect.orDie),
      list,
      breaks,
      findBreakForUpdate,
      resolve,
      openBreaks,
      nameLines,
      storedEvents,
      unnamedAppliedEvents
    })
  })
)
