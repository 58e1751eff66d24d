import { Effect } from "effect"
import { SqlClient } from "effect/sql"

// A large ledger written by generate_series as the service writes it, for the benchmarks that need
// one (ledger-verify.ts, reconcile-import.ts). Run inside a transaction with
// `session_replication_role = replica`: the balance trigger is off for the bulk insert only.

/** The bench's 1,000 users' NGN cash accounts and the provider's settlement account. */
export const insertAccounts = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO ledger_accounts (id, unit, owner_user_id, non_negative, balance)
    SELECT 'user:bench-' || g || ':cash:NGN', 'NGN', 'bench-' || g, true, 0 FROM generate_series(1, 1000) AS g
    UNION ALL SELECT 'system:provider-settlement:NGN', 'NGN', NULL, false, NULL`
})

/**
 * Two postings for every ledger transaction, a deposit from the provider to one of the users
 * (amounts from the transaction id), and each user's balance as the sum of their postings.
 */
export const insertDepositPostings = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO ledger_postings (transaction_id, account_id, unit, amount_minor, created_at)
    SELECT t.id, v.account_id, 'NGN', v.amount, t.created_at
    FROM ledger_transactions t CROSS JOIN LATERAL (VALUES
      ('system:provider-settlement:NGN', -(t.id % 100000 + 1), 1),
      ('user:bench-' || (t.id % 1000 + 1) || ':cash:NGN', t.id % 100000 + 1, 2)) AS v (account_id, amount, position)
    ORDER BY t.id, v.position`
  yield* sql`UPDATE ledger_accounts a SET balance = (SELECT sum(amount_minor) FROM ledger_postings p WHERE p.account_id = a.id)
    WHERE a.non_negative`
})
