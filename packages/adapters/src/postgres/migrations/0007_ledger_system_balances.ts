import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * System accounts (provider settlement, transfers in flight, prize pools) stop keeping a running
 * balance. Every deposit and every prize in a unit posts to the same system account, so updating
 * its row on each posting made all of them queue on that one row lock. Their balance is now the
 * sum of their postings, computed when read, and the column holds NULL for them: no stale figure
 * can pass for a maintained one.
 *
 * User accounts keep the maintained balance, updated under their own row lock (the lock is what
 * keeps it from going negative under concurrency), so for them it must be present. The default
 * of 0 stays for user rows written by code that does not name the column.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`ALTER TABLE ledger_accounts ALTER COLUMN balance DROP NOT NULL`
  yield* sql`UPDATE ledger_accounts SET balance = NULL, updated_at = now() WHERE NOT non_negative`
  yield* sql`ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_user_balance_maintained
    CHECK (NOT non_negative OR balance IS NOT NULL)`
})
