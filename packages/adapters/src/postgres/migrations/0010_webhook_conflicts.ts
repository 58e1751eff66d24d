import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * A redelivery whose money-relevant fields differ from the stored event of its (kind, reference)
 * is kept as an event of its own with outcome `conflict`, so an operator can see it. Several may
 * arrive for one reference, so (kind, reference) stays unique only among the other events: the
 * first delivery of a reference is still the one and only event that can ever be applied, and
 * `INSERT … ON CONFLICT (kind, reference) WHERE outcome <> 'conflict'` still picks it.
 *
 * A stored event never moves into or out of `conflict` (the domain never marks one so, and replay
 * refuses conflicts); if a conflict row were turned into another outcome, the partial index would
 * refuse it as a second event for the reference.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_outcome_check`
  yield* sql`ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_outcome_check
    CHECK (outcome IN ('received', 'processed', 'ignored', 'rejected', 'unmatched', 'conflict'))`
  yield* sql`CREATE UNIQUE INDEX webhook_events_kind_reference_first_key ON webhook_events (kind, reference)
    WHERE outcome <> 'conflict'`
  yield* sql`ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_kind_reference_key`
})
