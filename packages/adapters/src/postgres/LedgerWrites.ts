import { Account, InsufficientFunds, LedgerTransaction } from "@payments-gaming/domain/ledger"
import { Money } from "@payments-gaming/domain/money"
import { Effect } from "effect"
import type { SqlClient, Statement } from "effect/sql"
import type { Slots } from "./StatementTemplate.ts"

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

/** The slots of `recordParts`: a transaction's key and kind, then its rows as parallel arrays. */
export const LEDGER_SLOTS = [
  "txKey",
  "txKind",
  "systemIds",
  "systemUnits",
  "userIds",
  "userUnits",
  "userOwners",
  "userDeltas",
  "postingAccounts",
  "postingUnits",
  "postingAmounts"
] as const
export type LedgerSlot = (typeof LEDGER_SLOTS)[number]

/**
 * The values of `recordParts`' slots for `transaction`: its system and user accounts (in `moves`'
 * order, which is account id order), a user account's balance change (0 without `creditUsers`),
 * and its postings in the transaction's order.
 */
export const recordValues = (
  transaction: LedgerTransaction.LedgerTransaction,
  moves: ReadonlyArray<Move>,
  creditUsers: boolean
): Record<LedgerSlot, unknown> => {
  const system = moves.filter((move) => !Account.isUserAccount(move.account))
  const users = moves.filter((move) => Account.isUserAccount(move.account))
  return {
    txKey: transaction.key,
    txKind: transaction.kind,
    systemIds: system.map(({ account }) => account.id),
    systemUnits: system.map(({ account }) => account.unit),
    userIds: users.map(({ account }) => account.id),
    userUnits: users.map(({ account }) => account.unit),
    userOwners: users.map(({ account }) => account.userId),
    userDeltas: users.map(({ delta }) => (creditUsers ? delta : 0n)),
    postingAccounts: transaction.postings.map((posting) => posting.account.id),
    postingUnits: transaction.postings.map((posting) => posting.account.unit),
    postingAmounts: transaction.postings.map(LedgerTransaction.postingMinorUnits)
  }
}

/**
 * The common table expressions that record a ledger transaction, for a `WITH` of one statement
 * template (`StatementTemplate`, values from `recordValues`): `tx`, its key row (`RETURNING id`,
 * nothing for a key posted before), then the account rows it lacks, its postings (in the
 * transaction's order), and, with `creditUsers`, every user account's balance change
 * (`user_accounts`: an upsert, so in array order, which is account id order, that returns each
 * user account's `id` and new `balance`). Each part is written only when the key row was created.
 * Without `creditUsers` a missing user row starts at 0 and its balance is left to the caller's
 * conditional updates. The rows come in as arrays (`unnest`), so one text serves a transaction of
 * any size. A transaction's postings go in with it, in this one INSERT: the database checks that
 * they exist in the writing database transaction and name existing accounts once per statement,
 * and that they balance once per transaction at COMMIT (migration 0023).
 *
 * `when`, a condition, gates the key row itself, and so everything: a statement that records
 * something else first (a webhook event, a spin, a transfer) posts only when that record is new.
 * Used by `LedgerPostgres.post` and by `LedgerRecorderPostgres`, which writes a posting with the
 * record that caused it (`LedgerCause`).
 *
 * Every user account row is locked (the upsert's update, a no-op without `creditUsers`) before
 * any posting is inserted: the postings read the upsert's result, so PostgreSQL cannot insert
 * them, and draw their ids, first. Per user account, posting ids then follow commit order (the
 * lock is held to COMMIT), which the wallet statement relies on to show running balances that
 * really were (docs/architecture.md, "The wallet statement").
 */
export const recordParts = (
  sql: SqlClient.SqlClient,
  slot: Slots<LedgerSlot>,
  creditUsers: boolean,
  when?: Statement.Fragment
): Array<Statement.Fragment> => {
  const onConflict = creditUsers
    ? sql`DO UPDATE SET balance = ledger_accounts.balance + excluded.balance, updated_at = now()`
    : sql`DO UPDATE SET balance = ledger_accounts.balance`
  return [
    when === undefined
      ? sql`tx AS (
          INSERT INTO ledger_transactions (idempotency_key, kind) VALUES (${slot.txKey}, ${slot.txKind})
          ON CONFLICT (idempotency_key) DO NOTHING
          RETURNING id
        )`
      : sql`tx AS (
          INSERT INTO ledger_transactions (idempotency_key, kind) SELECT ${slot.txKey}, ${slot.txKind}
          WHERE ${when}
          ON CONFLICT (idempotency_key) DO NOTHING
          RETURNING id
        )`,
    sql`system_accounts AS (
          INSERT INTO ledger_accounts (id, unit, owner_user_id, non_negative, balance)
          SELECT v.id, v.unit, NULL, false, NULL
          FROM unnest(${slot.systemIds}::text[], ${slot.systemUnits}::text[]) AS v (id, unit)
          WHERE EXISTS (SELECT 1 FROM tx)
          ON CONFLICT (id) DO NOTHING
        )`,
    sql`user_accounts AS (
          INSERT INTO ledger_accounts (id, unit, owner_user_id, non_negative, balance)
          SELECT v.id, v.unit, v.owner_user_id, true, v.balance
          FROM unnest(${slot.userIds}::text[], ${slot.userUnits}::text[], ${slot.userOwners}::text[],
            ${slot.userDeltas}::bigint[]) WITH ORDINALITY AS v (id, unit, owner_user_id, balance, position)
          WHERE EXISTS (SELECT 1 FROM tx)
          ORDER BY v.position
          ON CONFLICT (id) ${onConflict}
          RETURNING id, balance
        )`,
    sql`postings AS (
          INSERT INTO ledger_postings (transaction_id, account_id, unit, amount_minor)
          SELECT tx.id, v.account_id, v.unit, v.amount_minor
          FROM tx CROSS JOIN unnest(${slot.postingAccounts}::text[], ${slot.postingUnits}::text[],
            ${slot.postingAmounts}::bigint[]) WITH ORDINALITY AS v (account_id, unit, amount_minor, position)
          WHERE (SELECT count(*) FROM user_accounts) >= 0
          ORDER BY v.position
        )`
  ]
}

/** True when `moves` take from a user account: a posting that may be refused. */
export const takesFromUser = (moves: ReadonlyArray<Move>) =>
  moves.some((move) => Account.isUserAccount(move.account) && move.delta < 0n)

/**
 * `recordValues` for a posting written with the record that caused it (`recordParts` with
 * `creditUsers`): only credits, which nothing can refuse, so the one statement needs no
 * conditional update after it. A debit here is a bug in the caller (see `LedgerRecorder.record`).
 */
export const creditValues = (transaction: LedgerTransaction.LedgerTransaction): Record<LedgerSlot, unknown> => {
  const moves = netByAccount(transaction)
  if (takesFromUser(moves)) {
    throw new Error(`ledger transaction ${transaction.key} takes from a user: it cannot be posted with its record`)
  }
  return recordValues(transaction, moves, true)
}

/**
 * After `recordParts` without `creditUsers` created the transaction (every user row locked by
 * then, in account id order), every user balance changes, in the same order: a credit plainly, a
 * debit only while the balance stays at or above zero. Fails `InsufficientFunds` at the first
 * debit refused; the caller runs all of it in a transaction (a savepoint), which that rolls back.
 */
export const changeUserBalances = Effect.fnUntraced(function* (sql: SqlClient.SqlClient, moves: ReadonlyArray<Move>) {
  for (const { account, delta } of moves) {
    if (!Account.isUserAccount(account) || delta === 0n) continue
    if (delta > 0n) {
      yield* sql`UPDATE ledger_accounts SET balance = balance + ${delta}, updated_at = now()
        WHERE id = ${account.id}`
      continue
    }
    const updated = yield* sql`UPDATE ledger_accounts SET balance = balance + ${delta}, updated_at = now()
      WHERE id = ${account.id} AND balance + ${delta} >= 0
      RETURNING 1`
    if (updated.length === 0) return yield* insufficient(sql, account, delta)
  }
})

const insufficient = Effect.fnUntraced(function* (sql: SqlClient.SqlClient, account: Account.Account, delta: bigint) {
  const [stored] = yield* sql<{ balance: bigint }>`SELECT balance FROM ledger_accounts WHERE id = ${account.id}`
  const available = Money.formatMinorUnits(account.unit, stored?.balance ?? 0n)
  const requested = Money.formatMinorUnits(account.unit, -delta)
  return yield* new InsufficientFunds({
    accountId: account.id,
    unit: account.unit,
    available,
    requested,
    message: `insufficient funds: ${available} ${account.unit} available, ${requested} requested`
  })
})
