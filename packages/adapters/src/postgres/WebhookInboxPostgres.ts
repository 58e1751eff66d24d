import {
  EventKind,
  type HeldOutcome,
  type ListingPosition,
  type NewWebhookEvent,
  Outcome,
  type SettledOutcome,
  type WebhookEvent,
  type WebhookEventHeader,
  WebhookInbox
} from "@payments-gaming/domain/banking"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { type CauseShape, sqlCause } from "./LedgerCause.ts"
import { rowSchema } from "./RowSchema.ts"
import { type Slots, statementTemplate } from "./StatementTemplate.ts"

const HeaderColumns = Schema.Struct({
  id: Schema.String,
  kind: EventKind,
  reference: Schema.String,
  dedup_key: Schema.String,
  received_at: Schema.Date,
  outcome: Outcome,
  reason: Schema.NullOr(Schema.String),
  processed_at: Schema.NullOr(Schema.Date)
})

/** A `webhook_events` row without its body, as listed. */
const WebhookEventHeaderRow = rowSchema(
  HeaderColumns,
  (row): WebhookEventHeader => ({
    id: row.id,
    kind: row.kind,
    reference: row.reference,
    dedupKey: row.dedup_key,
    receivedAt: row.received_at,
    outcome: row.outcome,
    reason: row.reason,
    processedAt: row.processed_at
  })
)

/** A whole `webhook_events` row (`SELECT *`). */
const WebhookEventRow = rowSchema(
  HeaderColumns.mapFields((fields) => ({ ...fields, raw_body: Schema.Uint8Array, signature: Schema.String })),
  (row): WebhookEvent => ({
    id: row.id,
    kind: row.kind,
    reference: row.reference,
    dedupKey: row.dedup_key,
    rawBody: row.raw_body,
    signature: row.signature,
    receivedAt: row.received_at,
    outcome: row.outcome,
    reason: row.reason,
    processedAt: row.processed_at
  })
)

const IdRow = Schema.Struct({ id: Schema.String })

/** The slots of a delivery's row in the statement that stores it (`insertEvent`). */
const EVENT_SLOTS = [
  "kind",
  "reference",
  "dedupKey",
  "rawBody",
  "signature",
  "receivedAt",
  "processedAt",
  "outcome",
  "reason"
] as const
type EventSlot = (typeof EVENT_SLOTS)[number]

/** The outcome a delivery stores when the ledger held its posting already (`HeldOutcome`). */
const HELD_SLOTS = ["heldOutcome", "heldReason"] as const
type HeldSlot = (typeof HELD_SLOTS)[number]

/**
 * The INSERT of a delivery's row, its outcome and reason from `stored` (a row of two columns). ON
 * CONFLICT (kind, reference) DO NOTHING: of any number of concurrent deliveries of one event, in
 * any number of processes, exactly one inserts; the others wait for it on the unique index and
 * insert nothing (the index is partial, migration 0010: `conflict` rows share their key).
 */
const insertEvent = (sql: SqlClient.SqlClient, slot: Slots<EventSlot>, stored: Statement.Fragment) =>
  sql`INSERT INTO webhook_events
        (kind, reference, dedup_key, raw_body, signature, received_at, outcome, reason, processed_at)
      SELECT ${slot.kind}, ${slot.reference}, ${slot.dedupKey}, ${slot.rawBody}, ${slot.signature},
        ${slot.receivedAt}, stored.outcome, stored.reason, ${slot.processedAt}
      FROM (${stored}) AS stored (outcome, reason)
      ON CONFLICT (kind, reference) WHERE outcome <> 'conflict' DO NOTHING
      RETURNING id, outcome, reason`

/**
 * A deposit's event as the cause of its credit (`WebhookInbox.credit`), inside the ledger's one
 * statement (`LedgerRecorderPostgres`): the event's INSERT, which is the `written` condition the
 * posting is gated on (a duplicate writes nothing, posting included). The concurrency argument is
 * the single INSERT's: of concurrent deliveries of one event exactly one inserts it, the others
 * wait on the unique index and insert nothing.
 *
 * The event's outcome is the held one when the ledger already has the posting's key (`held`, read
 * in the same statement). A post of that key committing while this statement runs is seen by the
 * posting's INSERT (which waits for it) but not by that read: `posted` is then false with the
 * settled outcome stored, and the caller corrects it (`WebhookInbox.credit`). Without a held
 * outcome the settled one is its value too.
 */
const creditShape: CauseShape<EventSlot | HeldSlot> = {
  name: "webhook credit",
  slots: [...EVENT_SLOTS, ...HELD_SLOTS],
  build: (sql, slot, ledger) => ({
    parts: [
      sql`event AS (${insertEvent(
        sql,
        slot,
        sql`SELECT CASE WHEN ledger.holds THEN ${slot.heldOutcome} ELSE ${slot.outcome} END,
            CASE WHEN ledger.holds THEN ${slot.heldReason} ELSE ${slot.reason} END
          FROM (SELECT ${ledger.held} AS holds) AS ledger`
      )})`
    ],
    written: sql`EXISTS (SELECT 1 FROM event)`,
    columns: sql`id, outcome, reason, ${ledger.posted} AS posted`,
    from: sql`FROM event`
  })
}

const eventValues = (event: NewWebhookEvent, settled: SettledOutcome): Record<EventSlot, unknown> => ({
  kind: event.kind,
  reference: event.reference,
  dedupKey: event.dedupKey,
  rawBody: event.rawBody,
  signature: event.signature,
  receivedAt: event.receivedAt,
  processedAt: settled.processedAt,
  outcome: settled.outcome,
  reason: settled.reason
})

/**
 * What the delivery's INSERT returns: the uuid PostgreSQL generated for the new row, the outcome
 * it stored, and whether the event's posting was written.
 */
interface InsertedRow {
  readonly id: string
  readonly outcome: SettledOutcome["outcome"]
  readonly reason: string | null
  readonly posted: boolean
}

const NewEvent = Schema.Struct({
  kind: EventKind,
  reference: Schema.String,
  dedupKey: Schema.String,
  rawBody: Schema.Uint8Array,
  signature: Schema.String,
  receivedAt: Schema.Date
})

// Ids come from operators and the CLI; a non-UUID cannot name an event, and must not reach a
// uuid comparison that PostgreSQL would reject with an error.
const uuid = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/**
 * Webhook events on PostgreSQL. `store` is one INSERT … ON CONFLICT (kind, reference) DO NOTHING
 * (`insertEvent`): a delivery that loses to a concurrent one reads it back as a duplicate. A
 * deposit's event is the same INSERT inside the ledger's statement (`credit`, `creditShape`).
 */
export const layer = Layer.effect(
  WebhookInbox,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // Runs once per delivery, so it is a statement template rather than a `SqlSchema` query: the
    // event is a `NewWebhookEvent` the domain built, whose fields encode to themselves (a request
    // encoding checked six fields and copied them for nothing), and the columns returned are the
    // uuid PostgreSQL just generated and the outcome it stored. The rarer statements below keep
    // their schemas.
    const insert = statementTemplate(
      sql,
      EVENT_SLOTS,
      (slot) => sql`${insertEvent(sql, slot, sql`VALUES (${slot.outcome}, ${slot.reason})`)}, false AS posted`
    )

    const findLive = SqlSchema.findOneOption({
      Request: Schema.Struct({ kind: EventKind, reference: Schema.String }),
      Result: WebhookEventRow,
      execute: (event) => sql`SELECT * FROM webhook_events
          WHERE kind = ${event.kind} AND reference = ${event.reference} AND outcome <> 'conflict'`
    })

    // Once per distinct conflict (migration 0018): a repeat's insert does nothing, and the kept row
    // is read instead. The read is a statement of its own so that it sees a repeat committed while
    // this insert waited on the index.
    const insertConflict = SqlSchema.findAll({
      Request: NewEvent.mapFields((fields) => ({
        ...fields,
        reason: Schema.String,
        processedAt: Schema.Date
      })),
      Result: IdRow,
      execute: (event) => sql`INSERT INTO webhook_events
            (kind, reference, dedup_key, raw_body, signature, received_at, outcome, reason, processed_at, conflict_key)
          VALUES (${event.kind}, ${event.reference}, ${event.dedupKey}, ${event.rawBody}, ${event.signature},
            ${event.receivedAt}, 'conflict', ${event.reason}, ${event.processedAt}, md5(${event.reason}))
          ON CONFLICT (kind, reference, conflict_key) WHERE conflict_key IS NOT NULL DO NOTHING
          RETURNING id`
    })

    const findConflict = SqlSchema.findOne({
      Request: Schema.Struct({ kind: EventKind, reference: Schema.String, reason: Schema.String }),
      Result: WebhookEventRow,
      execute: (event) => sql`SELECT * FROM webhook_events
          WHERE kind = ${event.kind} AND reference = ${event.reference} AND conflict_key = md5(${event.reason})`
    })

    const findById = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: WebhookEventRow,
      execute: (id) => sql`SELECT * FROM webhook_events WHERE id = ${id}::uuid`
    })

    const findByIdForUpdate = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: WebhookEventRow,
      execute: (id) => sql`SELECT * FROM webhook_events WHERE id = ${id}::uuid FOR UPDATE`
    })

    const listByOffset = SqlSchema.findAll({
      Request: Schema.Struct({ outcome: Schema.optional(Outcome), limit: Schema.Number, offset: Schema.Number }),
      Result: WebhookEventRow,
      execute: (filter) =>
        filter.outcome === undefined
          ? sql`SELECT * FROM webhook_events ORDER BY received_at, id LIMIT ${filter.limit} OFFSET ${filter.offset}`
          : sql`SELECT * FROM webhook_events WHERE outcome = ${filter.outcome}
              ORDER BY received_at, id LIMIT ${filter.limit} OFFSET ${filter.offset}`
    })

    // Row comparison on (received_at, id) walks the indexes of migration 0011 (0002's for an
    // outcome) backwards from the position: no offset, whatever the page. Bodies are not read.
    const listByPosition = SqlSchema.findAll({
      Request: Schema.Struct({
        outcome: Schema.optional(Outcome),
        kind: Schema.optional(EventKind),
        reference: Schema.optional(Schema.String),
        after: Schema.optional(Schema.Struct({ receivedAt: Schema.Date, id: Schema.String })),
        limit: Schema.Number
      }),
      Result: WebhookEventHeaderRow,
      execute: ({ outcome, kind, reference, after, limit }) => {
        const where = sql.and([
          ...(outcome === undefined ? [] : [sql`outcome = ${outcome}`]),
          ...(kind === undefined ? [] : [sql`kind = ${kind}`]),
          ...(reference === undefined ? [] : [sql`reference = ${reference}`]),
          ...(after === undefined ? [] : [sql`(received_at, id) < (${after.receivedAt}, ${after.id}::uuid)`])
        ])
        return sql`SELECT id, kind, reference, dedup_key, received_at, outcome, reason, processed_at
          FROM webhook_events WHERE ${where} ORDER BY received_at DESC, id DESC LIMIT ${limit}`
      }
    })

    // Everything but the id is what was just written (and the column defaults), so the raw body is
    // not sent back. No row: the event was stored before, and is read instead.
    const answer = Effect.fnUntraced(
      function* (event: NewWebhookEvent, settled: SettledOutcome, rows: ReadonlyArray<InsertedRow>) {
        const [inserted] = rows
        if (inserted !== undefined) {
          const created: WebhookEvent = {
            id: inserted.id,
            kind: event.kind,
            reference: event.reference,
            dedupKey: event.dedupKey,
            rawBody: event.rawBody,
            signature: event.signature,
            receivedAt: event.receivedAt,
            outcome: inserted.outcome,
            reason: inserted.reason,
            processedAt: settled.processedAt
          }
          return { _tag: "Stored" as const, event: created, posted: inserted.posted }
        }
        const existing = yield* findLive(event)
        return { _tag: "Duplicate" as const, event: Option.getOrThrow(existing) }
      },
      (effect) => Effect.orDie(effect)
    )

    const store = Effect.fnUntraced(function* (event: NewWebhookEvent, settled: SettledOutcome) {
      const rows = yield* insert<InsertedRow>(eventValues(event, settled)).pipe(Effect.orDie)
      return yield* answer(event, settled, rows)
    })

    const credit = (event: NewWebhookEvent, settled: SettledOutcome, held?: HeldOutcome) =>
      sqlCause(
        creditShape,
        {
          ...eventValues(event, settled),
          heldOutcome: (held ?? settled).outcome,
          heldReason: (held ?? settled).reason
        },
        (rows: ReadonlyArray<InsertedRow>) => answer(event, settled, rows)
      )

    const storeConflict = Effect.fnUntraced(function* (event: NewWebhookEvent, reason: string, processedAt: Date) {
      const [inserted] = yield* insertConflict({ ...event, reason, processedAt })
      if (inserted !== undefined) {
        const created: WebhookEvent = { id: inserted.id, ...event, outcome: "conflict", reason, processedAt }
        return { event: created, repeated: false }
      }
      return { event: yield* findConflict({ kind: event.kind, reference: event.reference, reason }), repeated: true }
    }, Effect.orDie)

    const find = (id: string) => (uuid.test(id) ? findById(id).pipe(Effect.orDie) : Effect.succeedNone)

    const findForUpdate = (id: string) =>
      uuid.test(id) ? findByIdForUpdate(id).pipe(Effect.orDie) : Effect.succeedNone

    const list = (filter: {
      readonly outcome?: Outcome | undefined
      readonly limit: number
      readonly offset: number
    }) => listByOffset(filter).pipe(Effect.orDie)

    const listPage = (filter: {
      readonly outcome?: Outcome | undefined
      readonly kind?: EventKind | undefined
      readonly reference?: string | undefined
      readonly after?: ListingPosition | undefined
      readonly limit: number
    }) => listByPosition(filter).pipe(Effect.orDie)

    const markOutcome = Effect.fnUntraced(function* (
      id: string,
      outcome: Exclude<Outcome, "received" | "conflict">,
      reason: string | null,
      processedAt: Date
    ) {
      yield* sql`UPDATE webhook_events SET outcome = ${outcome}, reason = ${reason}, processed_at = ${processedAt}
        WHERE id = ${id}::uuid`
    }, Effect.orDie)

    return WebhookInbox.of({ store, credit, storeConflict, find, findForUpdate, list, listPage, markOutcome })
  })
)
