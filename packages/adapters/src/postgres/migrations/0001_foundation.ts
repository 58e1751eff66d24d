import { Effect } from "effect"
import { SqlClient } from "effect/sql"

// The foundation owns no business table yet; this migration proves the migrator runs end to end
// and records when the database was first set up.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS service_metadata (
    key text PRIMARY KEY,
    value text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
  )`
  yield* sql`INSERT INTO service_metadata (key, value) VALUES ('initialised_at', now()::text) ON CONFLICT (key) DO NOTHING`
})
