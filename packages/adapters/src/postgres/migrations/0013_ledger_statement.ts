import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The wallet statement (issue 17) pages a user's postings newest first by position,
 * `WHERE account_id = $a AND id < $cursor ORDER BY id DESC LIMIT n`, and computes each balance
 * after from sums of the account's postings over an id range. (account_id, id) serves both as a
 * backward range scan; INCLUDE carries what the page and the sums read (amount, time, transaction),
 * so they are index-only scans that never visit the heap for a visible page.
 *
 * It replaces 0002's (account_id) index, whose every use (a system account's balance, `reconcile`,
 * the foreign key) the new one serves with the same leading column: one index per posting insert
 * to maintain, as before.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE INDEX ledger_postings_account_id_idx ON ledger_postings (account_id, id)
    INCLUDE (amount_minor, created_at, transaction_id)`
  yield* sql`DROP INDEX ledger_postings_account_idx`
})
