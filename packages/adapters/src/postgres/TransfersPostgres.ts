import { UserId } from "@payments-gaming/domain/auth"
import { type NewTransfer, type Transfer, TransferStatus, Transfers } from "@payments-gaming/domain/banking"
import { Currency, Money } from "@payments-gaming/domain/money"
import { Effect, Layer, Option, Result, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { type CauseRows, type CauseShape, sqlCause } from "./LedgerCause.ts"
import { rowSchema } from "./RowSchema.ts"

/** A `transfers` row (`SELECT *`); the amount is kept in minor units. */
const TransferRow = rowSchema(
  Schema.Struct({
    reference: Schema.String,
    user_id: UserId,
    currency: Currency,
    amount_minor: Schema.BigInt,
    status: TransferStatus,
    created_at: Schema.Date,
    updated_at: Schema.Date
  }),
  (row): Transfer => ({
    reference: row.reference,
    userId: row.user_id,
    currency: row.currency,
    amount: Money.fromMinorUnits(row.currency, row.amount_minor).amount,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at
  })
)

/** The slots of a new transfer's row in the ledger's statement that opens it (`openedShape`). */
const OPENED_SLOTS = ["reference", "userId", "currency", "amountMinor"] as const

/**
 * A new transfer as the cause of its hold (`Transfers.opened`), inside the ledger's statement
 * (`LedgerRecorderPostgres`): inserted PENDING unless the reference is taken, and the hold posted
 * only when it was (`written`). Its row is returned when it is new.
 */
const openedShape: CauseShape<(typeof OPENED_SLOTS)[number]> = {
  name: "transfer opened",
  slots: OPENED_SLOTS,
  build: (sql, slot) => ({
    parts: [
      sql`opened AS (
          INSERT INTO transfers (reference, user_id, currency, amount_minor)
          VALUES (${slot.reference}, ${slot.userId}, ${slot.currency}, ${slot.amountMinor}::bigint)
          ON CONFLICT (reference) DO NOTHING
          RETURNING *
        )`
    ],
    written: sql`EXISTS (SELECT 1 FROM opened)`,
    columns: sql`opened.*`,
    from: sql`FROM opened`
  })
}

/** The slots of a transfer's move out of PENDING in the ledger's statement (`finishedShape`). */
const FINISHED_SLOTS = ["reference", "status", "at"] as const

/**
 * A pending transfer settled or failed as the cause of the posting that settles or gives back its
 * hold (`Transfers.finished`): the posting is written only when the transfer moved (`written`).
 */
const finishedShape: CauseShape<(typeof FINISHED_SLOTS)[number]> = {
  name: "transfer finished",
  slots: FINISHED_SLOTS,
  build: (sql, slot) => ({
    parts: [
      sql`finished AS (
          UPDATE transfers SET status = ${slot.status}, updated_at = ${slot.at}::timestamptz
          WHERE reference = ${slot.reference} AND status = 'PENDING'
          RETURNING *
        )`
    ],
    written: sql`EXISTS (SELECT 1 FROM finished)`,
    columns: sql`finished.*`,
    from: sql`FROM finished`
  })
}

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(TransferRow))

/**
 * Outbound transfers on PostgreSQL, amounts in minor units. `findForUpdate` takes the row lock, so
 * a success and a failure for the same transfer arriving together are decided one after the other.
 * A transfer is opened and finished by the ledger, with its postings (`openedShape`, `finishedShape`).
 */
export const layer = Layer.effect(
  Transfers,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const findByReference = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: TransferRow,
      execute: (reference) => sql`SELECT * FROM transfers WHERE reference = ${reference}`
    })

    const findByReferenceForUpdate = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: TransferRow,
      execute: (reference) => sql`SELECT * FROM transfers WHERE reference = ${reference} FOR UPDATE`
    })

    const find = (reference: string) => findByReference(reference).pipe(Effect.orDie)

    const findForUpdate = (reference: string) => findByReferenceForUpdate(reference).pipe(Effect.orDie)

    // What `opened`'s statement answered, read into the transfer. Made once, not a generator per
    // call (docs/architecture.md).
    const openedAnswer = Effect.fnUntraced(
      function* (transfer: NewTransfer, rows: CauseRows) {
        const [inserted] = yield* decodeRows(rows)
        if (inserted !== undefined) return { created: true, transfer: inserted }
        return { created: false, transfer: Option.getOrThrow(yield* find(transfer.reference)) }
      },
      (effect) => Effect.orDie(effect)
    )

    // The new row, or the one whose reference it met.
    const opened = (transfer: NewTransfer) =>
      sqlCause(
        openedShape,
        {
          reference: transfer.reference,
          userId: transfer.userId,
          currency: transfer.currency,
          amountMinor: Result.getOrThrow(Money.toMinorUnits(Money.make(transfer.currency, transfer.amount)))
        },
        (rows: CauseRows) => openedAnswer(transfer, rows)
      )

    const finished = (reference: string, status: "SETTLED" | "FAILED", at: Date) =>
      sqlCause(finishedShape, { reference, status, at }, (rows: CauseRows) =>
        Effect.map(decodeRows(rows), (decoded) => Option.fromUndefinedOr(decoded[0])).pipe(Effect.orDie)
      )

    return Transfers.of({ opened, find, findForUpdate, finished })
  })
)
