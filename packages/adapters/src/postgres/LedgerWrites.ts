import { Account, LedgerTransaction } from "@payments-gaming/domain/ledger"
import type { SqlClient, Statement } from "effect/sql"

/** One account's net change in a transaction. */
export interface Move {
  readonly account: Account.Account
  readonly delta: bigint
}

/** Net change per account, in ascending account id: the order every poster locks user rows in. */
export const netByAccount = (transaction: LedgerTransaction.LedgerTransaction): ReadonlyArray<Move> => {
  const net = new Map<string, Move>()
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
 * The common table expressions that record a ledger transaction, for a `WITH` of one statement:
 * `tx`, its key row (`RETURNING id`, nothing for a key posted before), then the account rows it
 * lacks, its postings (in the transaction's order), and, with `creditUsers`, every user account's
 * balance change (`user_accounts`: an upsert, so in VALUES order, which is account id order, that
 * returns each user account's `id` and new `balance`). Each part is written only when the key row
 * was created. Without `creditUsers` a missing user row starts at 0 and its balance is left to the
 * caller's conditional updates.
 *
 * `when`, a condition, gates the key row itself, and so everything: a statement that records
 * something else first (a webhook event, a spin) posts only when that record is new. Used by
 * `LedgerPostgres.post` and by the stores that write a posting with the record that caused it
 * (`NotifiedPosting`).
 *
 * Every user account row is locked (the upsert's update, a no-op without `creditUsers`) before
 * any posting is inserted: the postings read the upsert's result, so PostgreSQL cannot insert
 * them, and draw their ids, first. Per user account, posting ids then follow commit order (the
 * lock is held to COMMIT), which the wallet statement relies on to show running balances that
 * really were (docs/architecture.md, "The wallet statement").
 */
export const recordParts = (
  sql: SqlClient.SqlClient,
  transaction: LedgerTransaction.LedgerTransaction,
  moves: ReadonlyArray<Move>,
  creditUsers: boolean,
  when?: Statement.Fragment
): Array<Statement.Fragment> => {
  const system = moves.filter((move) => !Account.isUserAccount(move.account))
  const users = moves.filter((move) => Account.isUserAccount(move.account))
  const parts = [
    when === undefined
      ? sql`tx AS (
          INSERT INTO ledger_transactions (idempotency_key, kind) VALUES (${transaction.key}, ${transaction.kind})
          ON CONFLICT (idempotency_key) DO NOTHING
          RETURNING id
        )`
      : sql`tx AS (
          INSERT INTO ledger_transactions (idempotency_key, kind) SELECT ${transaction.key}, ${transaction.kind}
          WHERE ${when}
          ON CONFLICT (idempotency_key) DO NOTHING
          RETURNING id
        )`
  ]
  if (system.length > 0) {
    parts.push(sql`system_accounts AS (
          INSERT INTO ledger_accounts (id, unit, owner_user_id, non_negative, balance)
          SELECT v.id, v.unit, NULL, false, NULL
          FROM (VALUES ${sql.csv(system.map(({ account }) => sql`(${account.id}, ${account.unit})`))}) AS v (id, unit)
          WHERE EXISTS (SELECT 1 FROM tx)
          ON CONFLICT (id) DO NOTHING
        )`)
  }
  if (users.length > 0) {
    const rows = sql.csv(
      users.map(
        ({ account, delta }) =>
          sql`(${account.id}, ${account.unit}, ${account.userId}, ${creditUsers ? delta : 0n}::bigint)`
      )
    )
    const onConflict = creditUsers
      ? sql`DO UPDATE SET balance = ledger_accounts.balance + excluded.balance, updated_at = now()`
      : sql`DO UPDATE SET balance = ledger_accounts.balance`
    parts.push(sql`user_accounts AS (
          INSERT INTO ledger_accounts (id, unit, owner_user_id, non_negative, balance)
          SELECT v.id, v.unit, v.owner_user_id, true, v.balance
          FROM (VALUES ${rows}) AS v (id, unit, owner_user_id, balance)
          WHERE EXISTS (SELECT 1 FROM tx)
          ON CONFLICT (id) ${onConflict}
          RETURNING id, balance
        )`)
  }
  const postings = sql.csv(
    transaction.postings.map(
      (posting, position) =>
        sql`(${position}::int, ${posting.account.id}, ${posting.account.unit}, ${LedgerTransaction.postingMinorUnits(posting)}::bigint)`
    )
  )
  parts.push(sql`postings AS (
        INSERT INTO ledger_postings (transaction_id, account_id, unit, amount_minor)
        SELECT tx.id, v.account_id, v.unit, v.amount_minor
        FROM tx CROSS JOIN (VALUES ${postings}) AS v (position, account_id, unit, amount_minor)
        ${users.length > 0 ? sql`WHERE (SELECT count(*) FROM user_accounts) >= 0` : sql``}
        ORDER BY v.position
      )`)
  return parts
}

/**
 * `recordParts` for a posting written with the record that caused it: only credits, which nothing
 * can refuse, so the one statement needs no conditional update after it. A debit here is a bug in
 * the caller (see `NotifiedPosting`).
 */
export const creditParts = (
  sql: SqlClient.SqlClient,
  transaction: LedgerTransaction.LedgerTransaction,
  when: Statement.Fragment
): Array<Statement.Fragment> => {
  const moves = netByAccount(transaction)
  if (moves.some((move) => Account.isUserAccount(move.account) && move.delta < 0n)) {
    throw new Error(`ledger transaction ${transaction.key} takes from a user: it cannot be posted with its record`)
  }
  return recordParts(sql, transaction, moves, true, when)
}
