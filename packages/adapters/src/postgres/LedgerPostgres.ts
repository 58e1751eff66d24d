import {
  type Account,
  type Discrepancy,
  InsufficientFunds,
  Ledger,
  LedgerTransaction,
  type UserBalances
} from "@payments-gaming/domain/ledger"
import { COIN, Money, Unit } from "@payments-gaming/domain/money"
import { Array as Arr, Effect, Layer, Option, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"

const StoredPosting = Schema.Struct({
  idempotency_key: Schema.String,
  kind: LedgerTransaction.TransactionKind,
  account_id: Schema.String,
  unit: Unit,
  owner_user_id: Schema.NullOr(Schema.String),
  amount_minor: Schema.BigInt
})
const decodePostings = Schema.decodeUnknownEffect(Schema.Array(StoredPosting))

const BalanceRow = Schema.Struct({ unit: Unit, balance: Schema.BigInt })
const decodeBalances = Schema.decodeUnknownEffect(Schema.Array(BalanceRow))
const decodeBalance = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ balance: Schema.BigInt })))

/** Net change per account, in ascending account id: the order every poster locks rows in. */
const netByAccount = (transaction: LedgerTransaction.LedgerTransaction) => {
  const net = new Map<string, { readonly account: Account.Account; readonly delta: bigint }>()
  for (const posting of transaction.postings) {
    const before = net.get(posting.account.id)?.delta ?? 0n
    net.set(posting.account.id, {
      account: posting.account,
      delta: before + LedgerTransaction.postingMinorUnits(posting)
    })
  }
  return [...net.values()].sort((a, b) => (a.account.id < b.account.id ? -1 : a.account.id > b.account.id ? 1 : 0))
}

/**
 * The ledger on PostgreSQL. It never opens a connection of its own: every statement runs on the
 * ambient `SqlClient`, inside the caller's transaction when there is one, and `post` wraps its
 * work in `withTransaction` (a savepoint when nested) so a refused posting leaves no trace.
 *
 * Exactly-once rests on the database: the idempotency key is UNIQUE and inserted first with ON
 * CONFLICT DO NOTHING, so a concurrent poster of the same key waits for the first and then finds
 * it. Balances change through a conditional UPDATE that takes each account's row lock in account
 * id order (no deadlock between two posters) and refuses to take a user account below zero.
 */
export const layer = Layer.effect(
  Ledger,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const load = (key: string) =>
      Effect.gen(function* () {
        const rows = yield* decodePostings(
          yield* sql`SELECT t.idempotency_key, t.kind, p.account_id, p.unit, a.owner_user_id, p.amount_minor
            FROM ledger_transactions t
            JOIN ledger_postings p ON p.transaction_id = t.id
            JOIN ledger_accounts a ON a.id = p.account_id
            WHERE t.idempotency_key = ${key}
            ORDER BY p.id`
        )
        const first = rows[0]
        if (first === undefined) return Option.none()
        const rebuilt = LedgerTransaction.make({
          key: first.idempotency_key,
          kind: first.kind,
          postings: rows.map((row) => ({
            account: { id: row.account_id, unit: row.unit, userId: row.owner_user_id },
            amount: Money.fromMinorUnits(row.unit, row.amount_minor).amount
          }))
        })
        return Option.some(Result.getOrThrow(rebuilt))
      })

    const insufficient = (account: Account.Account, delta: bigint) =>
      Effect.gen(function* () {
        const rows = yield* decodeBalance(yield* sql`SELECT balance FROM ledger_accounts WHERE id = ${account.id}`)
        const available = Money.formatMinorUnits(account.unit, rows[0]?.balance ?? 0n)
        const requested = Money.formatMinorUnits(account.unit, -delta)
        return yield* new InsufficientFunds({
          accountId: account.id,
          unit: account.unit,
          available,
          requested,
          message: `insufficient funds: ${available} ${account.unit} available, ${requested} requested`
        })
      })

    const post = Effect.fn("Ledger.post")(
      (transaction: LedgerTransaction.LedgerTransaction) =>
        sql.withTransaction(
          Effect.gen(function* () {
            const inserted = yield* sql<{ id: bigint }>`INSERT INTO ledger_transactions (idempotency_key, kind)
              VALUES (${transaction.key}, ${transaction.kind})
              ON CONFLICT (idempotency_key) DO NOTHING
              RETURNING id`
            const created = inserted[0]
            if (created === undefined) {
              const existing = yield* load(transaction.key)
              return { transaction: Option.getOrThrow(existing), created: false }
            }
            for (const { account, delta } of netByAccount(transaction)) {
              yield* sql`INSERT INTO ledger_accounts (id, unit, owner_user_id, non_negative)
                VALUES (${account.id}, ${account.unit}, ${account.userId}, ${account.userId !== null})
                ON CONFLICT (id) DO NOTHING`
              if (delta === 0n) continue
              const updated = yield* sql`UPDATE ledger_accounts
                SET balance = balance + ${delta}, updated_at = now()
                WHERE id = ${account.id} AND (NOT non_negative OR balance + ${delta} >= 0)
                RETURNING balance`
              if (updated.length === 0) return yield* insufficient(account, delta)
            }
            const rows = transaction.postings.map(
              (posting): Record<string, unknown> => ({
                transaction_id: created.id,
                account_id: posting.account.id,
                unit: posting.account.unit,
                amount_minor: LedgerTransaction.postingMinorUnits(posting)
              })
            )
            if (Arr.isReadonlyArrayNonEmpty(rows)) yield* sql`INSERT INTO ledger_postings ${sql.insert(rows)}`
            return { transaction, created: true }
          })
        ),
      Effect.catchTags({ SqlError: Effect.die, SchemaError: Effect.die })
    )

    const find = Effect.fn("Ledger.find")(load, Effect.orDie)

    const balance = Effect.fn("Ledger.balance")(function* (account: Account.Account) {
      const rows = yield* decodeBalance(yield* sql`SELECT balance FROM ledger_accounts WHERE id = ${account.id}`)
      return Money.fromMinorUnits(account.unit, rows[0]?.balance ?? 0n)
    }, Effect.orDie)

    const balances = Effect.fn("Ledger.balances")(function* (userId: string) {
      const rows = yield* decodeBalances(
        yield* sql`SELECT unit, balance FROM ledger_accounts WHERE owner_user_id = ${userId} ORDER BY unit`
      )
      let coins = 0n
      const cash: Array<Money.Money> = []
      for (const row of rows) {
        if (row.unit === COIN) coins = row.balance
        else cash.push(Money.fromMinorUnits(row.unit, row.balance))
      }
      const result: UserBalances = { userId, coins, cash }
      return result
    }, Effect.orDie)

    const reconcile = Effect.gen(function* () {
      const found: Array<Discrepancy> = []
      const mismatched = yield* sql<{ id: string; balance: bigint; posted: string }>`
        SELECT a.id, a.balance, COALESCE(sum(p.amount_minor), 0)::text AS posted
        FROM ledger_accounts a LEFT JOIN ledger_postings p ON p.account_id = a.id
        GROUP BY a.id, a.balance
        HAVING a.balance <> COALESCE(sum(p.amount_minor), 0)`
      for (const row of mismatched) {
        found.push({
          kind: "balance-mismatch",
          subject: row.id,
          detail: `balance ${row.balance}, postings ${row.posted}`
        })
      }
      const unbalanced = yield* sql<{ key: string; unit: string; total: string }>`
        SELECT t.idempotency_key AS key, p.unit, sum(p.amount_minor)::text AS total
        FROM ledger_transactions t JOIN ledger_postings p ON p.transaction_id = t.id
        GROUP BY t.idempotency_key, p.unit
        HAVING sum(p.amount_minor) <> 0`
      for (const row of unbalanced) {
        found.push({ kind: "unbalanced-transaction", subject: row.key, detail: `${row.unit} sums to ${row.total}` })
      }
      const negative = yield* sql<{ id: string; balance: bigint }>`
        SELECT id, balance FROM ledger_accounts WHERE owner_user_id IS NOT NULL AND balance < 0`
      for (const row of negative) {
        found.push({ kind: "negative-user-balance", subject: row.id, detail: `balance ${row.balance}` })
      }
      return found as ReadonlyArray<Discrepancy>
    }).pipe(Effect.orDie, Effect.withSpan("Ledger.reconcile"))

    return Ledger.of({ post, find, balance, balances, reconcile })
  })
)
