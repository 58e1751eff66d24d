import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The double-entry ledger and the core-banking webhook tables.
 *
 * Ledger: postings are integers of the unit's minor unit, immutable (a trigger refuses UPDATE and
 * DELETE), and each transaction must sum to zero per unit (a deferred constraint trigger checks it
 * at commit, behind the domain's own check). Every account keeps a running balance, updated in the
 * same transaction as its postings; user accounts carry CHECK (balance >= 0) as the last line of
 * defence behind the conditional update in the repository.
 *
 * Webhooks: UNIQUE (kind, reference) is what makes concurrent redeliveries, from any number of
 * processes, store and apply an event exactly once.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE ledger_accounts (
    id text PRIMARY KEY,
    unit text NOT NULL,
    owner_user_id text,
    non_negative boolean NOT NULL,
    balance bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ledger_accounts_id_unit_key UNIQUE (id, unit),
    CONSTRAINT ledger_accounts_unit_check CHECK (unit ~ '^([A-Z]{3}|COIN)$'),
    CONSTRAINT ledger_accounts_user_non_negative CHECK (owner_user_id IS NULL OR non_negative),
    CONSTRAINT ledger_accounts_balance_non_negative CHECK (NOT non_negative OR balance >= 0)
  )`
  yield* sql`CREATE INDEX ledger_accounts_owner_idx ON ledger_accounts (owner_user_id) WHERE owner_user_id IS NOT NULL`

  yield* sql`CREATE TABLE ledger_transactions (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    idempotency_key text NOT NULL,
    kind text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ledger_transactions_idempotency_key_key UNIQUE (idempotency_key),
    CONSTRAINT ledger_transactions_key_length CHECK (length(idempotency_key) BETWEEN 1 AND 256)
  )`

  yield* sql`CREATE TABLE ledger_postings (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    transaction_id bigint NOT NULL REFERENCES ledger_transactions (id),
    account_id text NOT NULL,
    unit text NOT NULL,
    amount_minor bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ledger_postings_account_fkey FOREIGN KEY (account_id, unit) REFERENCES ledger_accounts (id, unit),
    CONSTRAINT ledger_postings_amount_non_zero CHECK (amount_minor <> 0)
  )`
  yield* sql`CREATE INDEX ledger_postings_transaction_idx ON ledger_postings (transaction_id)`
  yield* sql`CREATE INDEX ledger_postings_account_idx ON ledger_postings (account_id)`

  yield* sql`CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'ledger % rows are immutable', TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
    END
  $$`
  yield* sql`CREATE TRIGGER ledger_postings_immutable BEFORE UPDATE OR DELETE ON ledger_postings
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()`
  yield* sql`CREATE TRIGGER ledger_transactions_immutable BEFORE UPDATE OR DELETE ON ledger_transactions
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()`

  yield* sql`CREATE FUNCTION ledger_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      unbalanced text;
    BEGIN
      SELECT unit INTO unbalanced FROM ledger_postings
        WHERE transaction_id = NEW.transaction_id
        GROUP BY unit HAVING sum(amount_minor) <> 0
        LIMIT 1;
      IF unbalanced IS NOT NULL THEN
        RAISE EXCEPTION 'ledger transaction % does not sum to zero in %', NEW.transaction_id, unbalanced
          USING ERRCODE = 'check_violation';
      END IF;
      IF (SELECT count(*) FROM ledger_postings WHERE transaction_id = NEW.transaction_id) < 2 THEN
        RAISE EXCEPTION 'ledger transaction % has fewer than two postings', NEW.transaction_id
          USING ERRCODE = 'check_violation';
      END IF;
      RETURN NULL;
    END
  $$`
  yield* sql`CREATE CONSTRAINT TRIGGER ledger_postings_balanced AFTER INSERT ON ledger_postings
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced()`

  yield* sql`CREATE TABLE webhook_events (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    kind text NOT NULL,
    reference text NOT NULL,
    dedup_key text NOT NULL,
    raw_body bytea NOT NULL,
    signature text NOT NULL,
    received_at timestamptz NOT NULL,
    outcome text NOT NULL DEFAULT 'received',
    reason text,
    processed_at timestamptz,
    CONSTRAINT webhook_events_kind_reference_key UNIQUE (kind, reference),
    CONSTRAINT webhook_events_kind_check
      CHECK (kind IN ('virtualaccount.credit', 'transfer.success', 'transfer.failed', 'ignored')),
    CONSTRAINT webhook_events_outcome_check
      CHECK (outcome IN ('received', 'processed', 'ignored', 'rejected', 'unmatched'))
  )`
  yield* sql`CREATE INDEX webhook_events_outcome_idx ON webhook_events (outcome, received_at, id)`

  yield* sql`CREATE TABLE webhook_dead_letters (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    raw_body bytea NOT NULL,
    signature text NOT NULL,
    received_at timestamptz NOT NULL,
    error text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`CREATE INDEX webhook_dead_letters_received_idx ON webhook_dead_letters (received_at)`

  yield* sql`CREATE TABLE virtual_accounts (
    account_number text PRIMARY KEY,
    user_id text NOT NULL,
    currency text NOT NULL,
    account_name text,
    bank_name text,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT virtual_accounts_currency_check CHECK (currency ~ '^[A-Z]{3}$')
  )`
  yield* sql`CREATE INDEX virtual_accounts_user_idx ON virtual_accounts (user_id)`

  yield* sql`CREATE TABLE transfers (
    reference text PRIMARY KEY,
    user_id text NOT NULL,
    currency text NOT NULL,
    amount_minor bigint NOT NULL,
    status text NOT NULL DEFAULT 'PENDING',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT transfers_amount_positive CHECK (amount_minor > 0),
    CONSTRAINT transfers_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
    CONSTRAINT transfers_status_check CHECK (status IN ('PENDING', 'SETTLED', 'FAILED'))
  )`
  yield* sql`CREATE INDEX transfers_user_idx ON transfers (user_id)`
})
