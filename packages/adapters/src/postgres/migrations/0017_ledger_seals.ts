import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The sealed ledger (issue 31, CONTRACT §8, docs/ledger-seals.md).
 *
 * `ledger_seals` is the hash chain, one row per seal; `ledger_seal_members` says which seal covers
 * each transaction (its primary key: a transaction is in one seal at most) with the SHA-256 of the
 * transaction's encoding as sealed, so that `ledger verify` can name the transaction that changed.
 * Only the sealer writes either, under its advisory lock; both refuse UPDATE, DELETE and TRUNCATE
 * like the ledger itself. No foreign keys: a key check would lock ledger rows (KEY SHARE) from the
 * sealer, and verify checks every reference anyway.
 *
 * `ledger_transactions.xact_id` is the id of the database transaction that wrote the row
 * (`pg_current_xact_id()`, 64 bits, never wraps), filled by a column default: the posting
 * statements are unchanged, and the row takes no lock and touches no shared row. It lets the sealer
 * read only recent rows without ever skipping a late commit. Each seal stores its snapshot's xmin
 * as `horizon`: every database transaction below it had ended before the seal read the ledger, so
 * the seal saw all of them that committed, and sealed them, except, when it was cut at its size
 * limit, those numbered above the last it took (`resume_after_id`). The next seal reads rows at
 * or above the horizon (the index below) and rows above `resume_after_id`. Rows written before this
 * migration keep NULL: they committed before the column existed (ADD COLUMN waits for every writer
 * of the table), so the first seal, which reads every row, or a resumed one covers them.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // Metadata only: no rewrite of the table (no default on ADD, then a default for new rows).
  yield* sql`ALTER TABLE ledger_transactions ADD COLUMN xact_id bigint`
  yield* sql`ALTER TABLE ledger_transactions ALTER COLUMN xact_id SET DEFAULT (pg_current_xact_id()::text::bigint)`
  yield* sql`CREATE INDEX ledger_transactions_xact_id_idx ON ledger_transactions (xact_id)`

  yield* sql`CREATE TABLE ledger_seals (
    sequence bigint PRIMARY KEY,
    hash text NOT NULL,
    previous_hash text NOT NULL,
    transactions integer NOT NULL,
    first_transaction_id bigint NOT NULL,
    last_transaction_id bigint NOT NULL,
    horizon bigint NOT NULL,
    resume_after_id bigint,
    sealed_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ledger_seals_sequence_positive CHECK (sequence >= 1),
    CONSTRAINT ledger_seals_hash_hex CHECK (hash ~ '^[0-9a-f]{64}$' AND previous_hash ~ '^[0-9a-f]{64}$'),
    CONSTRAINT ledger_seals_transactions_positive CHECK (transactions >= 1)
  )`

  yield* sql`CREATE TABLE ledger_seal_members (
    transaction_id bigint PRIMARY KEY,
    seal_sequence bigint NOT NULL,
    digest bytea NOT NULL
  )`
  yield* sql`CREATE INDEX ledger_seal_members_seal_idx ON ledger_seal_members (seal_sequence, transaction_id)`

  for (const table of ["ledger_seals", "ledger_seal_members"]) {
    yield* sql`CREATE TRIGGER ${sql(`${table}_immutable`)} BEFORE UPDATE OR DELETE ON ${sql(table)}
      FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()`
    yield* sql`CREATE TRIGGER ${sql(`${table}_no_truncate`)} BEFORE TRUNCATE ON ${sql(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()`
  }
})
