import { UserId } from "@payments-gaming/domain/auth"
import { type NewVirtualAccount, type VirtualAccount, VirtualAccounts } from "@payments-gaming/domain/banking"
import { Currency } from "@payments-gaming/domain/money"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { rowSchema } from "./RowSchema.ts"

/** A `virtual_accounts` row (`SELECT *`). */
const VirtualAccountRow = rowSchema(
  Schema.Struct({
    account_number: Schema.String,
    user_id: UserId,
    currency: Currency,
    account_name: Schema.NullOr(Schema.String),
    bank_name: Schema.NullOr(Schema.String),
    created_at: Schema.Date
  }),
  (row): VirtualAccount => ({
    accountNumber: row.account_number,
    userId: row.user_id,
    currency: row.currency,
    accountName: row.account_name,
    bankName: row.bank_name,
    createdAt: row.created_at
  })
)

/** Virtual account links on PostgreSQL; the primary key on the number decides concurrent links. */
export const layer = Layer.effect(
  VirtualAccounts,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // Every credit looks its account up. The number is a string already (a `Schema.String` request
    // encoding returned it unchanged), so only the row is decoded, with the decoder built here once.
    const decodeAccount = Schema.decodeUnknownEffect(VirtualAccountRow)
    const findByNumber = (accountNumber: string) =>
      Effect.flatMap(
        sql`SELECT * FROM virtual_accounts WHERE account_number = ${accountNumber}`,
        ([row]): Effect.Effect<Option.Option<VirtualAccount>, Schema.SchemaError> =>
          row === undefined ? Effect.succeedNone : Effect.asSome(decodeAccount(row))
      )

    const insertNew = SqlSchema.findOneOption({
      Request: Schema.Struct({
        accountNumber: Schema.String,
        userId: Schema.String,
        currency: Schema.String,
        accountName: Schema.NullOr(Schema.String),
        bankName: Schema.NullOr(Schema.String)
      }),
      Result: VirtualAccountRow,
      execute: (
        account
      ) => sql`INSERT INTO virtual_accounts (account_number, user_id, currency, account_name, bank_name)
          VALUES (${account.accountNumber}, ${account.userId}, ${account.currency}, ${account.accountName}, ${account.bankName})
          ON CONFLICT (account_number) DO NOTHING
          RETURNING *`
    })

    const find = (accountNumber: string) => findByNumber(accountNumber).pipe(Effect.orDie)

    const insert = Effect.fnUntraced(function* (account: NewVirtualAccount) {
      const inserted = yield* insertNew(account)
      if (Option.isSome(inserted)) return { created: true, account: inserted.value }
      return { created: false, account: Option.getOrThrow(yield* find(account.accountNumber)) }
    }, Effect.orDie)

    return VirtualAccounts.of({ insert, find })
  })
)
