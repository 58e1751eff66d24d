import { UserId } from "@payments-gaming/domain/auth"
import {
  LedgerStatement,
  LedgerTransaction,
  type StatementEntriesQuery,
  type StatementEntry
} from "@payments-gaming/domain/ledger"
import { Unit } from "@payments-gaming/domain/money"
import { Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { rowSchema } from "./RowSchema.ts"

/** One statement entry: a posting, its transaction's kind and key, and its account's balance just after it. */
const StatementRow = rowSchema(
  Schema.Struct({
    id: Schema.BigInt,
    created_at: Schema.Date,
    unit: Unit,
    amount_minor: Schema.BigInt,
    kind: LedgerTransaction.TransactionKind,
    idempotency_key: Schema.String,
    balance_after: Schema.BigInt
  }),
  (row): StatementEntry => ({
    id: row.id,
    occurredAt: row.created_at,
    kind: row.kind,
    key: row.idempotency_key,
    unit: row.unit,
    amountMinor: row.amount_minor,
    balanceAfterMinor: row.balance_after
  })
)

/** What one page reads: the port's query for one user. */
export interface StatementRequest extends StatementEntriesQuery {
  /** A `UserId`, as the request schema encodes it. */
  readonly userId: string
}

/**
 * The statement of one page, exported so a test can EXPLAIN exactly what runs (see the plan test).
 */
export const statementQuery = (
  sql: SqlClient.SqlClient,
  { userId, unit, from, to, before, limit }: StatementRequest
) => {
  const accountFilter = unit === undefined ? sql`` : sql`AND unit = ${unit}`
  const postingFilter = sql.and([
    sql`p.account_id = a.id`,
    ...(before === undefined ? [] : [sql`p.id < ${before}::bigint`]),
    ...(from === undefined ? [] : [sql`p.created_at >= ${from}`]),
    ...(to === undefined ? [] : [sql`p.created_at < ${to}`])
  ])
  return sql`WITH accounts AS MATERIALIZED (
      SELECT id, unit, balance FROM ledger_accounts WHERE owner_user_id = ${userId} ${accountFilter}
    ),
    page AS MATERIALIZED (
      SELECT p.id, p.account_id, a.unit, p.amount_minor, p.created_at, p.transaction_id
      FROM accounts a CROSS JOIN LATERAL (
        SELECT p.id, p.account_id, p.amount_minor, p.created_at, p.transaction_id
        FROM ledger_postings p
        WHERE ${postingFilter}
        ORDER BY p.id DESC
        LIMIT ${limit}
      ) p
      ORDER BY p.id DESC
      LIMIT ${limit}
    ),
    anchors AS MATERIALIZED (
      SELECT s.account_id, s.top, s.bottom,
        CASE
          WHEN (SELECT max(id) FROM ledger_postings WHERE account_id = s.account_id) - s.top
            <= s.top - (SELECT min(id) FROM ledger_postings WHERE account_id = s.account_id)
          THEN a.balance - COALESCE(
            (SELECT sum(amount_minor) FROM ledger_postings WHERE account_id = s.account_id AND id > s.top), 0)
          ELSE (SELECT sum(amount_minor) FROM ledger_postings WHERE account_id = s.account_id AND id <= s.top)
        END AS balance_at_top
      FROM (SELECT account_id, max(id) AS top, min(id) AS bottom FROM page GROUP BY account_id) s
      JOIN accounts a ON a.id = s.account_id
    ),
    running AS (
      SELECT r.id, (an.balance_at_top - COALESCE(sum(r.amount_minor) OVER (
          PARTITION BY r.account_id ORDER BY r.id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
        )::bigint AS balance_after
      FROM anchors an CROSS JOIN LATERAL (
        SELECT id, account_id, amount_minor FROM ledger_postings
        WHERE account_id = an.account_id AND id BETWEEN an.bottom AND an.top
      ) r
    )
    SELECT page.id, page.created_at, page.unit, page.amount_minor, t.kind, t.idempotency_key, running.balance_after
    FROM page
    JOIN running ON running.id = page.id
    JOIN ledger_transactions t ON t.id = page.transaction_id
    ORDER BY page.id DESC`
}

/**
 * A user's statement on PostgreSQL: one statement, so one snapshot, per page. Nothing here writes
 * or locks: the posting path (LedgerPostgres) is untouched and never waits for a reader.
 *
 * - The page: for each of the user's accounts (one with a currency filter), its postings below the
 *   cursor, newest first, walked backwards on `ledger_postings_account_id_idx` (account_id, id) and
 *   cut at the page size; then the accounts' runs merged and cut again. Each run reads at most a
 *   page of index entries (more only when `from`/`to` skip some), however long the history.
 * - The balance after each entry is computed, never stored: per account on the page, its balance
 *   just after its newest entry there (the maintained balance less the postings numbered above it,
 *   or the sum of the postings up to it, whichever range of the index is shorter; the two agree in
 *   one snapshot, as `reconcile` checks), then a running sum down the postings between its newest
 *   and oldest entry on the page, including any a `from`/`to` filter leaves out. `anchors` is
 *   MATERIALIZED so those sums run once per account, not once per row of the window (inlined, a
 *   page deep in a long history summed it 50 times; the plan test counts the buffers).
 *
 * Order and paging rest on the posting id, which PostgreSQL draws when the posting is inserted,
 * before the poster takes the account's row lock, so two postings can commit in the other order.
 * What that means for a reader (and what it does not) is said in docs/architecture.md, "The wallet
 * statement".
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const page = SqlSchema.findAll({
    Request: Schema.Struct({
      userId: UserId,
      unit: Schema.optional(Unit),
      from: Schema.optional(Schema.Date),
      to: Schema.optional(Schema.Date),
      before: Schema.optional(Schema.BigInt),
      limit: Schema.Number
    }),
    Result: StatementRow,
    execute: (request) => statementQuery(sql, request)
  })

  const entries = Effect.fn("LedgerStatement.entries")(
    (userId: UserId, query: StatementEntriesQuery) => page({ ...query, userId }),
    Effect.orDie
  )

  return LedgerStatement.of({ entries })
})

export const layer = Layer.effect(LedgerStatement, make)
