import { Effect } from "effect"
import { SqlClient } from "effect/sql"

// The push devices of each user (issue 18). A token belongs to one user at a time (the unique key):
// registering it for another user moves the row. Rows are never deleted, only deactivated, by their
// user or when a provider says the token is dead; the partial index serves "this user's active
// devices", which the deposit's transaction reads to write its notifications.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE user_devices (
    id uuid PRIMARY KEY,
    user_id text NOT NULL,
    token_type text NOT NULL CHECK (token_type IN ('FCM', 'APNS')),
    token text NOT NULL,
    platform text,
    active boolean NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    deactivated_at timestamptz,
    deactivation_reason text,
    CONSTRAINT user_devices_token_key UNIQUE (token_type, token)
  )`
  yield* sql`CREATE INDEX user_devices_user_active_idx ON user_devices (user_id) WHERE active`
})
