import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * One row per distinct conflict (issue 34): a conflicting redelivery is kept once, however often the
 * provider sends it again. `conflict_key` is the MD5 of the conflict's reason (which names the
 * stored event and each differing field with both values, decoded, so identical redeliveries give
 * one reason and different ones another), set only on `conflict` rows; the unique index makes the
 * insert of a repeat do nothing. Rows kept before this migration have no key, and NULLs are
 * distinct, so they stay as they are.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`ALTER TABLE webhook_events ADD COLUMN conflict_key text`
  yield* sql`ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_conflict_key_check
    CHECK (conflict_key IS NULL OR outcome = 'conflict')`
  yield* sql`CREATE UNIQUE INDEX webhook_events_conflict_key ON webhook_events (kind, reference, conflict_key)
    WHERE conflict_key IS NOT NULL`
})
