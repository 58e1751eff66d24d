import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The two references every spin and every credit makes to one shared row, checked without locking
 * it (issue 35).
 *
 * A foreign key's check locks the row it finds (`FOR KEY SHARE`) until the inserting transaction
 * ends, so that nobody deletes it or changes its key meanwhile. Every posting of a deposit or a
 * prize references the same system account (the provider's settlement account, a prize pool), and
 * every spin the same wheel. When a second transaction locks a row a first one still holds,
 * PostgreSQL records both lockers in a new MultiXact and rewrites the row's header to name it,
 * under its page's exclusive lock, logged twice; every further locker does it again, reading the
 * members of the last MultiXact first, and concurrent spins queue on that page. 11,700 spins at
 * 1,170 a second made 2,350 MultiXacts (7,669 members) under the foreign keys and none after this
 * migration, which also took 3.3 WAL records and 233 bytes off a spin (docs/benchmarks.md,
 * "Twenty-second session").
 *
 * The lock guards against a delete or a key change that nothing may do anyway: the rows are made
 * to keep their keys for ever, by triggers, and then a plain lookup gives the foreign key's
 * guarantee. For each of `ledger_postings (account_id, unit) → ledger_accounts (id, unit)` and
 * `spins (wheel_version) → wheels (version)`:
 *
 * - the referenced table refuses DELETE, TRUNCATE, and an UPDATE that changes the key (the
 *   balance of an account and the `active` flag of a wheel still change: a KEY SHARE lock never
 *   stood in their way either);
 * - an AFTER INSERT row trigger looks the referenced row up, unlocked, and fails the statement with
 *   SQLSTATE 23503 under the foreign key's old name when it is missing. Like a foreign key's own
 *   trigger it runs when the statement's rows are all written, so it sees the account a sibling
 *   `WITH` part of the same statement inserted (`LedgerWrites.recordParts`).
 *
 * The foreign keys go last, once the guards are in place. The rows already stored satisfy the
 * reference, since the foreign keys held until now. Like the foreign keys, the triggers do not fire
 * under `session_replication_role = replica`. `UNIQUE (id, unit)` on `ledger_accounts` existed only
 * as the postings' foreign key's target (the primary key on `id` already makes the pair unique), so
 * it goes too: one index entry fewer for every new account.
 */
const REFERENCES = [
  {
    table: "ledger_postings",
    foreignKey: "ledger_postings_account_fkey",
    referenced: "ledger_accounts",
    keyChanged: "OLD.id IS DISTINCT FROM NEW.id OR OLD.unit IS DISTINCT FROM NEW.unit",
    lookup: "ledger_accounts WHERE id = NEW.account_id AND unit = NEW.unit",
    missing: "'ledger account % (%) does not exist', NEW.account_id, NEW.unit"
  },
  {
    table: "spins",
    foreignKey: "spins_wheel_version_fkey",
    referenced: "wheels",
    keyChanged: "OLD.id IS DISTINCT FROM NEW.id OR OLD.version IS DISTINCT FROM NEW.version",
    lookup: "wheels WHERE version = NEW.wheel_version",
    missing: "'wheel version % does not exist', NEW.wheel_version"
  }
] as const

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE FUNCTION refuse_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION '% rows are immutable in their keys and never deleted (% refused)', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
    END
  $$`

  for (const reference of REFERENCES) {
    const referenced = sql(reference.referenced)
    yield* sql`CREATE TRIGGER ${sql(`${reference.referenced}_never_deleted`)} BEFORE DELETE ON ${referenced}
      FOR EACH ROW EXECUTE FUNCTION refuse_key_change()`
    // The WHEN is evaluated without calling the function: a balance update pays nothing for it.
    yield* sql`CREATE TRIGGER ${sql(`${reference.referenced}_keys_fixed`)} BEFORE UPDATE ON ${referenced}
      FOR EACH ROW WHEN (${sql.literal(reference.keyChanged)}) EXECUTE FUNCTION refuse_key_change()`
    yield* sql`CREATE TRIGGER ${sql(`${reference.referenced}_no_truncate`)} BEFORE TRUNCATE ON ${referenced}
      FOR EACH STATEMENT EXECUTE FUNCTION refuse_key_change()`

    const check = `${reference.foreignKey}_check`
    yield* sql.unsafe(`CREATE FUNCTION ${check}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM ${reference.lookup};
        IF NOT FOUND THEN
          RAISE EXCEPTION ${reference.missing}
            USING ERRCODE = 'foreign_key_violation', CONSTRAINT = '${reference.foreignKey}';
        END IF;
        RETURN NULL;
      END
    $$`)
    yield* sql`CREATE TRIGGER ${sql(check)} AFTER INSERT ON ${sql(reference.table)}
      FOR EACH ROW EXECUTE FUNCTION ${sql(check)}()`
    yield* sql`ALTER TABLE ${sql(reference.table)} DROP CONSTRAINT ${sql(reference.foreignKey)}`
  }
  yield* sql`ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_id_unit_key`
})
