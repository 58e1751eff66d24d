import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The ledger's own checks, run once per ledger transaction and once per statement instead of once
 * per posting (issue 35): the same guarantees for less of PostgreSQL's CPU on every credit, prize
 * and transfer.
 *
 * Until now every posting row fired three triggers: the foreign key's check on its transaction
 * (`ledger_postings_transaction_id_fkey`), 0022's lookup of its account, and 0002's deferred
 * balance check (`ledger_postings_balanced`), which at COMMIT ran two queries over its
 * transaction's postings. A two-posting deposit thus ran eight queries in triggers, the balance of
 * one transaction checked twice; a profile of the webhook's statement under load put about a fifth
 * of the database backends' CPU in them (docs/benchmarks.md, "Twenty-third session").
 *
 * - **Balanced, at COMMIT, once per ledger transaction.** A deferred constraint trigger on
 *   `ledger_transactions` sums the transaction's postings per unit in one query and refuses, with
 *   SQLSTATE 23514 and 0002's messages, a transaction that does not sum to zero in some unit or has
 *   fewer than two postings (now also none at all, which no posting trigger could see).
 * - **Postings join only a transaction of their own database transaction.** The balance is checked
 *   when the transaction is written, so a posting added later to a committed transaction would go
 *   unchecked. One AFTER INSERT statement trigger looks at all of a statement's postings at once
 *   (its transition table) and refuses, with SQLSTATE 23503, a posting whose ledger transaction was
 *   not written by the same database transaction (`xact_id`, 0017) under the name of the foreign
 *   key it replaces, and a posting whose account is missing or under another unit under
 *   `ledger_postings_account_fkey`, as 0022 did. That the ledger transaction exists is part of the
 *   first check, so its foreign key goes: `ledger_transactions` refuses UPDATE, DELETE and TRUNCATE
 *   (0002, 0008), which is all its lock guarded against. The writer's statement already inserts a
 *   transaction with all its postings (`LedgerWrites.recordParts`).
 *
 * Like the checks they replace, these do not fire under `session_replication_role = replica`. The
 * postings already stored were checked by the old triggers.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE FUNCTION ledger_transaction_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      postings bigint;
      unbalanced text;
    BEGIN
      SELECT sum(per_unit.n), min(per_unit.unit) FILTER (WHERE per_unit.total <> 0) INTO postings, unbalanced
        FROM (SELECT unit, count(*) AS n, sum(amount_minor) AS total FROM ledger_postings
              WHERE transaction_id = NEW.id GROUP BY unit) AS per_unit;
      IF unbalanced IS NOT NULL THEN
        RAISE EXCEPTION 'ledger transaction % does not sum to zero in %', NEW.id, unbalanced
          USING ERRCODE = 'check_violation';
      END IF;
      IF coalesce(postings, 0) < 2 THEN
        RAISE EXCEPTION 'ledger transaction % has fewer than two postings', NEW.id
          USING ERRCODE = 'check_violation';
      END IF;
      RETURN NULL;
    END
  $$`
  yield* sql`CREATE CONSTRAINT TRIGGER ledger_transactions_balanced AFTER INSERT ON ledger_transactions
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_transaction_balanced()`

  yield* sql`CREATE FUNCTION ledger_postings_checked() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      refused record;
    BEGIN
      SELECT n.transaction_id, n.account_id, n.unit, a.id IS NULL AS no_account INTO refused
        FROM inserted n
        LEFT JOIN ledger_accounts a ON a.id = n.account_id AND a.unit = n.unit
        LEFT JOIN ledger_transactions t
          ON t.id = n.transaction_id AND t.xact_id = pg_current_xact_id()::text::bigint
        WHERE a.id IS NULL OR t.id IS NULL
        LIMIT 1;
      IF NOT FOUND THEN
        RETURN NULL;
      END IF;
      IF refused.no_account THEN
        RAISE EXCEPTION 'ledger account % (%) does not exist', refused.account_id, refused.unit
          USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'ledger_postings_account_fkey';
      END IF;
      RAISE EXCEPTION 'ledger transaction % was not written by this database transaction', refused.transaction_id
        USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'ledger_postings_transaction_id_fkey';
    END
  $$`
  yield* sql`CREATE TRIGGER ledger_postings_checked AFTER INSERT ON ledger_postings
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION ledger_postings_checked()`

  // The old checks go once the new ones are in place.
  yield* sql`DROP TRIGGER ledger_postings_balanced ON ledger_postings`
  yield* sql`DROP FUNCTION ledger_check_balanced()`
  yield* sql`DROP TRIGGER ledger_postings_account_fkey_check ON ledger_postings`
  yield* sql`DROP FUNCTION ledger_postings_account_fkey_check()`
  yield* sql`ALTER TABLE ledger_postings DROP CONSTRAINT ledger_postings_transaction_id_fkey`
})
