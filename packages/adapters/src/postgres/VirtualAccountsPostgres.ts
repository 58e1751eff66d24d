import { type NewVirtualAccount, type VirtualAccount, VirtualAccounts } from "@payments-gaming/domain/banking"
import { Currency } from "@payments-gaming/domain/money"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"

const AccountRow = Schema.Struct({
  account_number: Schema.String,
  user_id: Schema.String,
  currency: Currency,
  account_name: Schema.NullOr(Schema.String),
  bank_name: Schema.NullOr(Schema.String),
  created_at: Schema.Date
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(AccountRow))

const toAccount = (row: typeof AccountRow.Type): VirtualAccount => ({
  accountNumber: row.account_number,
  userId: row.user_id,
  currency: row.currency,
  accountName: row.account_name,
  bankName: row.bank_name,
  createdAt: row.created_at
})

/** Virtual account links on PostgreSQL; the primary key on the number decides concurrent links. */
export const layer = Layer.effect(
  VirtualAccounts,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const find = Effect.fnUntraced(function* (accountNumber: string) {
      const rows = yield* decodeRows(yield* sql`SELECT * FROM virtual_accounts WHERE account_number = ${accountNumber}`)
      return Option.map(Option.fromUndefinedOr(rows[0]), toAccount)
    }, Effect.orDie)

    const insert = Effect.fnUntraced(function* (account: NewVirtualAccount) {
      const inserted = yield* decodeRows(
        yield* sql`INSERT INTO virtual_accounts (account_number, user_id, currency, account_name, bank_name)
          VALUES (${account.accountNumber}, ${account.userId}, ${account.currency}, ${account.accountName}, ${account.bankName})
          ON CONFLICT (account_number) DO NOTHING
          RETURNING *`
      )
      const created = inserted[0]
      if (created !== undefined) return { created: true, account: toAccount(created) }
      return { created: false, account: Option.getOrThrow(yield* find(account.accountNumber)) }
    }, Effect.orDie)

    return VirtualAccounts.of({ insert, find })
  })
)
