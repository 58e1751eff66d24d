import { UserId } from "@payments-gaming/domain/auth"
import {
  type Account,
  type Discrepancy,
  Ledger,
  LedgerTransaction,
  type UserBalances
} from "@payments-gaming/domain/ledger"
import { COIN, Money, Unit } from "@payments-gaming/domain/money"
import { Effect, Layer, Option, Result, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import {
  changeUserBalances,
  LEDGER_SLOTS,
  type Move,
  netByAccount,
  recordParts,
  recordValues,
  takesFromUser
} from "./LedgerWrites.ts"
import { rowSchema } from "./RowSchema.ts"
import { statementTemplate } from "./StatementTemplate.ts"

/** One posting of a stored transaction (`ledger_postings`), with its transaction's key and kind and its account's owner. */
const StoredPostingRow = rowSchema(
  Schema.Struct({
    idempotency_key: Schema.String,
    kind: LedgerTransaction.TransactionKind,
    account_id: Schema.String,
    unit: Unit,
    owner_user_id: Schema.NullOr(UserId),
    amount_minor: Schema.BigInt
  }),
  (row) => ({
    key: row.idempotency_key,
    kind: row.kind,
    posting: {
      account: { id: row.account_id, unit: row.unit, userId: row.owner_user_id },
      amount: Money.fromMinorUnits(row.unit, row.amount_minor).amount
    }
  })
)

/** A user's `ledger_accounts` row, as the wallet reads it. */
const BalanceRow = Schema.Struct({ unit: Unit, balance: Schema.BigInt })

/** One account's balance, maintained or summed. */
const AccountBalanceRow = Schema.Struct({ balance: Schema.BigInt })

/**
 * The ledger on PostgreSQL. It never opens a connection of its own: every statement runs on the
 * ambient `SqlClient`, inside the caller's transaction when there is one.
 *
 * Only user accounts keep a running balance, changed under their own row lock (taken in account
 * id order, so two posters never deadlock) and refused below zero. A system account (provider
 * settlement, transfers in flight, prize pools) is the other side of every deposit or prize in its
 * unit: a balance kept on its row would make all of them queue on that one lock. Its balance is
 * the sum of its postings, computed on read, and nothing on the posting path writes or locks its
 * row: it is created with INSERT … ON CONFLICT DO NOTHING, which skips an existing row without
 * locking it, and a posting's account is looked up without a lock (migration 0022: a foreign key's
 * KEY SHARE lock, shared by every poster, still made them queue on the row's page).
 *
 * Exactly-once rests on the database: the idempotency key is UNIQUE and inserted first with ON
 * CONFLICT DO NOTHING, so a concurrent poster of the same key waits for the first and then finds
 * it; every other row of the posting is written only when that insert created the transaction.
 */
export const layer = Layer.effect(
  Ledger,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const postingsOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: StoredPostingRow,
      execute: (key) => sql`SELECT t.idempotency_key, t.kind, p.account_id, p.unit, a.owner_user_id, p.amount_minor
            FROM ledger_transactions t
            JOIN ledger_postings p ON p.transaction_id = t.id
            JOIN ledger_accounts a ON a.id = p.account_id
            WHERE t.idempotency_key = ${key}
            ORDER BY p.id`
    })

    // A user account's maintained balance, or a system account's sum of postings.
    const currentBalance = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: AccountBalanceRow,
      execute: (accountId) => sql`SELECT CASE WHEN a.non_negative THEN a.balance
            ELSE (SELECT COALESCE(sum(p.amount_minor), 0) FROM ledger_postings p WHERE p.account_id = a.id)::bigint
          END AS balance
          FROM ledger_accounts a WHERE a.id = ${accountId}`
    })

    const userBalances = SqlSchema.findAll({
      Request: Schema.String,
      Result: BalanceRow,
      execute: (userId) => sql`SELECT unit, balance FROM ledger_accounts WHERE owner_user_id = ${userId} ORDER BY unit`
    })

    const load = (key: string) =>
      Effect.map(postingsOf(key), (rows) => {
        const first = rows[0]
        if (first === undefined) return Option.none()
        const rebuilt = LedgerTransaction.make({
          key: first.key,
          kind: first.kind,
          postings: rows.map((row) => row.posting)
        })
        return Option.some(Result.getOrThrow(rebuilt))
      })

    // One statement template each for credits and for debits (`StatementTemplate`).
    const recordTemplate = (creditUsers: boolean) =>
      statementTemplate(
        sql,
        LEDGER_SLOTS,
        (slot) => sql`WITH ${sql.csv(recordParts(sql, slot, creditUsers))} SELECT id FROM tx`
      )
    const recordCredits = recordTemplate(true)
    const recordDebits = recordTemplate(false)
    const record = (
      transaction: LedgerTransaction.LedgerTransaction,
      moves: ReadonlyArray<Move>,
      creditUsers: boolean
    ) => (creditUsers ? recordCredits : recordDebits)<{ id: bigint }>(recordValues(transaction, moves, creditUsers))

    const existing = (key: string) =>
      Effect.map(load(key), (stored) => ({ transaction: Option.getOrThrow(stored), created: false }))

    /**
     * Nothing can be refused (no user account goes down): one statement, atomic on its own, so
     * neither a transaction nor a savepoint of its own.
     */
    const postCredits = Effect.fnUntraced(function* (
      transaction: LedgerTransaction.LedgerTransaction,
      moves: ReadonlyArray<Move>
    ) {
      const [created] = yield* record(transaction, moves, true)
      if (created === undefined) return yield* existing(transaction.key)
      return { transaction, created: true }
    })

    // The rows of a posting that takes from a user, then the balances: `postWithDebits`'s body,
    // made once (docs/architecture.md).
    const debitRows = Effect.fnUntraced(function* (
      transaction: LedgerTransaction.LedgerTransaction,
      moves: ReadonlyArray<Move>
    ) {
      const [created] = yield* record(transaction, moves, false)
      if (created === undefined) return yield* existing(transaction.key)
      yield* changeUserBalances(sql, moves)
      return { transaction, created: true }
    })

    /**
     * A user account goes down: the conditional updates may refuse, so the posting runs in its own
     * transaction (a savepoint inside the caller's) that a refusal rolls back entirely. The rows are
     * recorded first (every user row locked by then, in account id order, see `record`), then every
     * user balance changes in the same order.
     */
    const postWithDebits = (transaction: LedgerTransaction.LedgerTransaction, moves: ReadonlyArray<Move>) =>
      sql.withTransaction(debitRows(transaction, moves))

    // Untraced: it runs inside every replay (credits, spins and transfers post with their cause,
    // through LedgerRecorderPostgres).
    const post = (transaction: LedgerTransaction.LedgerTransaction) => {
      const moves = netByAccount(transaction)
      return (takesFromUser(moves) ? postWithDebits(transaction, moves) : postCredits(transaction, moves)).pipe(
        Effect.catchTags({ SqlError: Effect.die, SchemaError: Effect.die })
      )
    }

    const find = Effect.fn("Ledger.find")(load, Effect.orDie)

    const balance = Effect.fn("Ledger.balance")(function* (account: Account.Account) {
      const row = yield* currentBalance(account.id)
      return Money.fromMinorUnits(
        account.unit,
        Option.match(row, { onNone: () => 0n, onSome: (found) => found.balance })
      )
    }, Effect.orDie)

    // Untraced: it runs on every wheel view and wallet read (see BankingService.receive).
    const balances = Effect.fnUntraced(function* (userId: UserId) {
      const rows = yield* userBalances(userId)
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
      // Only user accounts maintain a balance; a system account's is its postings by definition.
      const mismatched = yield* sql<{ id: string; balance: bigint | null; posted: string }>`
        SELECT a.id, a.balance, COALESCE(sum(p.amount_minor), 0)::text AS posted
        FROM ledger_accounts a LEFT JOIN ledger_postings p ON p.account_id = a.id
        WHERE a.non_negative
        GROUP BY a.id, a.balance
        HAVING a.balance IS DISTINCT FROM COALESCE(sum(p.amount_minor), 0)`
      for (const row of mismatched) {
        found.push({
          kind: "balance-mismatch",
          subject: row.id,
          detail: `balance ${row.balance ?? "missing"}, postings ${row.posted}`
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
