import { Effect } from "effect"
import { SqlClient } from "effect/sql"

// Every push attempt of the debug endpoint. The token itself is never stored: only its SHA-256
// (to find all attempts for one token) and its last 8 characters (to recognise it by eye).
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS push_deliveries (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    token_type text NOT NULL CHECK (token_type IN ('FCM', 'APNS')),
    token_hash text NOT NULL CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    token_last8 text NOT NULL CHECK (char_length(token_last8) <= 8),
    provider text NOT NULL,
    success boolean NOT NULL,
    error_code text,
    error_message text,
    provider_message_id text,
    latency_ms integer NOT NULL CHECK (latency_ms >= 0),
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT push_deliveries_outcome CHECK (success = (error_code IS NULL))
  )`
  yield* sql`CREATE INDEX IF NOT EXISTS push_deliveries_token_hash_idx ON push_deliveries (token_hash, created_at DESC)`
})
