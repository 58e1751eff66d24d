import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Settlement reconciliations (issue 32, CONTRACT §7). One row per imported report; the unique
 * (settlement_date, sha256) is what makes the same file imported twice, even at the same moment
 * from two processes, one reconciliation: the second INSERT waits for the first and finds it.
 * Counts by kind are fixed at import; `resolved` counts resolutions (updated with each one).
 *
 * A break keeps the report's line and the stored event as they were at the import (jsonb
 * snapshots: the line is not stored anywhere else, and the event may be replayed later), and its
 * resolution in columns, so who resolved what and when can be queried. `ordinal` is its place in
 * the reconciliation (the report's order, missing_in_report last): the listing's keyset, read on
 * the (reconciliation_id, kind | status, ordinal) indexes. The partial index on open breaks serves
 * the `reconciliation_breaks_open{kind}` gauge.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE reconciliations (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    settlement_date text NOT NULL,
    sha256 text NOT NULL,
    imported_at timestamptz NOT NULL,
    lines integer NOT NULL DEFAULT 0,
    matched integer NOT NULL DEFAULT 0,
    missing_in_ledger integer NOT NULL DEFAULT 0,
    missing_in_report integer NOT NULL DEFAULT 0,
    amount_mismatch integer NOT NULL DEFAULT 0,
    status_mismatch integer NOT NULL DEFAULT 0,
    resolved integer NOT NULL DEFAULT 0,
    CONSTRAINT reconciliations_date_sha256_key UNIQUE (settlement_date, sha256),
    CONSTRAINT reconciliations_date_check CHECK (settlement_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
    CONSTRAINT reconciliations_sha256_check CHECK (sha256 ~ '^[0-9a-f]{64}$')
  )`
  yield* sql`CREATE INDEX reconciliations_imported_idx ON reconciliations (imported_at, id)`
  yield* sql`CREATE TABLE reconciliation_breaks (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    reconciliation_id uuid NOT NULL REFERENCES reconciliations (id),
    ordinal integer NOT NULL,
    kind text NOT NULL,
    reference text NOT NULL,
    event_kind text NOT NULL,
    status text NOT NULL DEFAULT 'open',
    report jsonb,
    ledger jsonb,
    resolution_action text,
    resolution_note text,
    resolved_at timestamptz,
    resolved_by text,
    transaction_id text,
    CONSTRAINT reconciliation_breaks_ordinal_key UNIQUE (reconciliation_id, ordinal),
    CONSTRAINT reconciliation_breaks_kind_check
      CHECK (kind IN ('missing_in_ledger', 'missing_in_report', 'amount_mismatch', 'status_mismatch')),
    CONSTRAINT reconciliation_breaks_event_kind_check
      CHECK (event_kind IN ('virtualaccount.credit', 'transfer.success', 'transfer.failed')),
    CONSTRAINT reconciliation_breaks_status_check CHECK (status IN ('open', 'resolved')),
    CONSTRAINT reconciliation_breaks_resolution_check CHECK (
      (status = 'open' AND resolution_action IS NULL AND resolved_at IS NULL AND resolved_by IS NULL)
      OR (status = 'resolved' AND resolution_action IN ('credit', 'accept') AND resolution_note IS NOT NULL
        AND resolved_at IS NOT NULL AND resolved_by IS NOT NULL
        AND (transaction_id IS NOT NULL) = (resolution_action = 'credit'))
    )
  )`
  yield* sql`CREATE INDEX reconciliation_breaks_kind_idx ON reconciliation_breaks (reconciliation_id, kind, ordinal)`
  yield* sql`CREATE INDEX reconciliation_breaks_status_idx ON reconciliation_breaks (reconciliation_id, status, ordinal)`
  yield* sql`CREATE INDEX reconciliation_breaks_open_idx ON reconciliation_breaks (kind) WHERE status = 'open'`
})
