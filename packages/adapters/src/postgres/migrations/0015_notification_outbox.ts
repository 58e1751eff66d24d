import { Effect } from "effect"
import { SqlClient } from "effect/sql"

// The notification outbox (issue 18): one row per (event, device), written in the transaction that
// credits the money and delivered after the commit by a worker in every instance. The unique key
// makes a redelivered or replayed event add nothing. A worker holds a row under a lease
// (`claimed_until`, `claim_id`) while it sends: other instances skip it (FOR UPDATE SKIP LOCKED on
// the claim), and a worker that dies leaves it due again when the lease runs out. No foreign key to
// user_devices: devices are deactivated, never deleted, and a row's history must outlive any change
// to its device. The token is not copied here: it is read from user_devices at each claim.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE notification_outbox (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    event_key text NOT NULL,
    device_id uuid NOT NULL,
    user_id text NOT NULL,
    template_code text NOT NULL,
    title text NOT NULL,
    body text NOT NULL,
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'cancelled')),
    attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    claimed_until timestamptz,
    claim_id uuid,
    last_error text,
    provider_message_id text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    sent_at timestamptz,
    CONSTRAINT notification_outbox_key UNIQUE (event_key, device_id),
    CONSTRAINT notification_outbox_claim CHECK ((claimed_until IS NULL) = (claim_id IS NULL)),
    CONSTRAINT notification_outbox_sent CHECK ((status = 'sent') = (sent_at IS NOT NULL))
  )`
  // The claim's scan: pending rows in due order; the lease is checked on the few rows it reads.
  yield* sql`CREATE INDEX notification_outbox_due_idx ON notification_outbox (next_attempt_at) WHERE status = 'pending'`
  // Operators' listings by status, newest first, and "park/retry every row in a status".
  yield* sql`CREATE INDEX notification_outbox_status_idx ON notification_outbox (status, created_at DESC, id DESC)`
  // A dead token stops the device's waiting rows.
  yield* sql`CREATE INDEX notification_outbox_device_idx ON notification_outbox (device_id) WHERE status = 'pending'`
})
