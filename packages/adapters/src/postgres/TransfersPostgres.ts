import { UserId } from "@payments-gaming/domain/auth"
import { type NewTransfer, type Transfer, TransferStatus, Transfers } from "@payments-gaming/domain/banking"
import { Currency, Money } from "@payments-gaming/domain/money"
import { Effect, Layer, Option, Result, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
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

/**
 * Outbound transfers on PostgreSQL, amounts in minor units. `findForUpdate` takes the row lock, so
 * a success and a failure for the same transfer arriving together are decided one after the other.
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

    const insertNew = SqlSchema.findOneOption({
      Request: Schema.Struct({
        reference: Schema.String,
        userId: Schema.String,
        currency: Schema.String,
        amountMinor: Schema.BigInt
      }),
      Result: TransferRow,
      execute: (transfer) => sql`INSERT INTO transfers (reference, user_id, currency, amount_minor)
            VALUES (${transfer.reference}, ${transfer.userId}, ${transfer.currency}, ${transfer.amountMinor})
            ON CONFLICT (reference) DO NOTHING
            RETURNING *`
    })

    const settle = SqlSchema.findOneOption({
      Request: Schema.Struct({ reference: Schema.String, status: Schema.String, at: Schema.Date }),
      Result: TransferRow,
      execute: ({ reference, status, at }) => sql`UPDATE transfers SET status = ${status}, updated_at = ${at}
            WHERE reference = ${reference} AND status = 'PENDING'
            RETURNING *`
    })

    const find = (reference: string) => findByReference(reference).pipe(Effect.orDie)

    const findForUpdate = (reference: string) => findByReferenceForUpdate(reference).pipe(Effect.orDie)

    const insert = Effect.fnUntraced(function* (transfer: NewTransfer) {
      const amountMinor = Result.getOrThrow(Money.toMinorUnits(Money.make(transfer.currency, transfer.amount)))
      const inserted = yield* insertNew({ ...transfer, amountMinor })
      if (Option.isSome(inserted)) return { created: true, transfer: inserted.value }
      return { created: false, transfer: Option.getOrThrow(yield* find(transfer.reference)) }
    }, Effect.orDie)

    const finish = (reference: string, status: "SETTLED" | "FAILED", at: Date) =>
      settle({ reference, status, at }).pipe(Effect.orDie)

    return Transfers.of({ insert, find, findForUpdate, finish })
  })
)
