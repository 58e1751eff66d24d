import { Effect } from "effect"
import { SqlClient } from "effect/sql"

// What was sent is visible, and a push that left is never mistaken for one that did not (issue 29).
//
// notification_outbox:
// - `send_started_at`: set, under the claim, just before the row's push leaves; cleared when its
//   outcome is recorded. A row whose lease ran out with it still set was sent, or may have been,
//   without its outcome being recorded (its worker died, or the database could not be reached):
//   it is "sent-unconfirmed". It is not released early: it waits out its lease.
// - `in_doubt`: an earlier send of the row may have reached the provider without us knowing
//   (sent-unconfirmed, or a provider that did not answer in time). Set by the claim that takes a
//   sent-unconfirmed row, or by the record of a timed-out send; never cleared.
// - `resends`: sends made while the row was in doubt: possible duplicates on the wire, each carrying
//   the same collapse key (the row's id) so the device shows one notification.
//
// push_deliveries: which notification and device an attempt was for (null for the debug push), the
// collapse key sent, whether it was a resend, and `attempt_id` so a record retried after a lost
// connection is stored once.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE notification_outbox
    ADD COLUMN send_started_at timestamptz,
    ADD COLUMN in_doubt boolean NOT NULL DEFAULT false,
    ADD COLUMN resends integer NOT NULL DEFAULT 0 CHECK (resends >= 0)`
  yield* sql`ALTER TABLE push_deliveries
    ADD COLUMN notification_id uuid,
    ADD COLUMN device_id uuid,
    ADD COLUMN collapse_key text,
    ADD COLUMN resend boolean,
    ADD COLUMN attempt_id uuid`
  yield* sql`CREATE UNIQUE INDEX push_deliveries_attempt_idx ON push_deliveries (attempt_id)`
  yield* sql`CREATE INDEX push_deliveries_notification_idx ON push_deliveries (notification_id, id)
    WHERE notification_id IS NOT NULL`
})
