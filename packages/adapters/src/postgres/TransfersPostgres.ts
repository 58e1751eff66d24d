import { type NewTransfer, type Transfer, TransferStatus, Transfers } from "@payments-gaming/domain/banking"
import { Currency, Money } from "@payments-gaming/domain/money"
import { Effect, Layer, Option, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"

const TransferRow = Schema.Struct({
  reference: Schema.String,
  user_id: Schema.String,
  currency: Currency,
  amount_minor: Schema.BigInt,
  status: TransferStatus,
  created_at: Schema.Date,
  updated_at: Schema.Date
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(TransferRow))

const toTransfer = (row: typeof TransferRow.Type): Transfer => ({
  reference: row.reference,
  userId: row.user_id,
  currency: row.currency,
  amount: Money.fromMinorUnits(row.currency, row.amount_minor).amount,
  status: row.status,
  createdAt: row.created_at,
  updatedAt: row.updated_at
})

const firstTransfer = (rows: ReadonlyArray<typeof TransferRow.Type>) =>
  Option.map(Option.fromUndefinedOr(rows[0]), toTransfer)

/**
 * Outbound transfers on PostgreSQL, amounts in minor units. `findForUpdate` takes the row lock, so
 * a success and a failure for the same transfer arriving together are decided one after the other.
 */
export const layer = Layer.effect(
  Transfers,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const find = Effect.fnUntraced(function* (reference: string) {
      return firstTransfer(yield* decodeRows(yield* sql`SELECT * FROM transfers WHERE reference = ${reference}`))
    }, Effect.orDie)

    const findForUpdate = Effect.fnUntraced(function* (reference: string) {
      return firstTransfer(
        yield* decodeRows(yield* sql`SELECT * FROM transfers WHERE reference = ${reference} FOR UPDATE`)
      )
    }, Effect.orDie)

    const insert = Effect.fnUntraced(function* (transfer: NewTransfer) {
      const minor = Result.getOrThrow(Money.toMinorUnits(Money.make(transfer.currency, transfer.amount)))
      const inserted = firstTransfer(
        yield* decodeRows(
          yield* sql`INSERT INTO transfers (reference, user_id, currency, amount_minor)
            VALUES (${transfer.reference}, ${transfer.userId}, ${transfer.currency}, ${minor})
            ON CONFLICT (reference) DO NOTHING
            RETURNING *`
        )
      )
      if (Option.isSome(inserted)) return { created: true, transfer: inserted.value }
      return { created: false, transfer: Option.getOrThrow(yield* find(transfer.reference)) }
    }, Effect.orDie)

    const finish = Effect.fnUntraced(function* (reference: string, status: "SETTLED" | "FAILED", at: Date) {
      return firstTransfer(
        yield* decodeRows(
          yield* sql`UPDATE transfers SET status = ${status}, updated_at = ${at}
            WHERE reference = ${reference} AND status = 'PENDING'
            RETURNING *`
        )
      )
    }, Effect.orDie)

    return Transfers.of({ insert, find, findForUpdate, finish })
  })
)
