import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Two guards on the ledger (issue 14).
 *
 * Idempotency keys up to 512 characters. A key is a reference of up to 256 characters (the
 * provider's, or an admin transfer's) behind a prefix (`virtualaccount.credit:`, or `transfer:` and
 * a `:return` suffix): the 256 of 0002 refused the longest ones at the INSERT, so such a credit or
 * transfer answered 500 and its funds could not move. 512 matches `MAX_KEY_LENGTH` in the domain's
 * LedgerTransaction.ts. Every stored key is at most 256 characters, so the new check holds for them.
 *
 * TRUNCATE refused on the append-only tables. Row triggers refuse UPDATE and DELETE (0002), but
 * TRUNCATE fires no row trigger; a statement trigger closes that door. `TRUNCATE … CASCADE` from
 * ledger_accounts reaches ledger_postings and is refused there too.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_key_length`
  yield* sql`ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_key_length
    CHECK (length(idempotency_key) BETWEEN 1 AND 512)`

  yield* sql`CREATE TRIGGER ledger_postings_no_truncate BEFORE TRUNCATE ON ledger_postings
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()`
  yield* sql`CREATE TRIGGER ledger_transactions_no_truncate BEFORE TRUNCATE ON ledger_transactions
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()`
})
