import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Operators list webhook events and dead letters newest first, paged by position:
 * `WHERE (received_at, id) < ($at, $id) ORDER BY received_at DESC, id DESC LIMIT n`, optionally
 * filtered by outcome or kind. Each shape gets an index it can walk backwards from the position:
 * 0002's (outcome, received_at, id) serves the outcome filter; these serve no filter, the kind
 * filter, and the dead letters, whose (received_at) index the new one makes redundant.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE INDEX webhook_events_received_idx ON webhook_events (received_at, id)`
  yield* sql`CREATE INDEX webhook_events_kind_received_idx ON webhook_events (kind, received_at, id)`
  yield* sql`CREATE INDEX webhook_dead_letters_received_id_idx ON webhook_dead_letters (received_at, id)`
  yield* sql`DROP INDEX webhook_dead_letters_received_idx`
})
