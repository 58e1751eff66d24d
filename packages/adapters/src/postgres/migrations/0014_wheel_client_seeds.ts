import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Client seeds for the wheel (issue 17): each player's seed and the nonce of their next spin, and
 * on every spin the client seed it was drawn with.
 *
 * `wheel_client_seeds` has a row for a player once they set a seed or spin; without one the player
 * has the default seed the domain derives from their user id, and nonce 0. A spin advances
 * `next_nonce` in its own transaction; setting another seed puts it back to 0.
 *
 * `spins.client_seed` is NULL for the spins recorded before this migration: they were drawn by the
 * earlier message (`userId:round:nonce`), which the NULL tells a verifier to use. Adding a nullable
 * column without a default rewrites nothing; its CHECK holds for every old row (NULL passes).
 * Every statement is idempotent.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE IF NOT EXISTS wheel_client_seeds (
    user_id text PRIMARY KEY,
    client_seed text NOT NULL,
    next_nonce integer NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT wheel_client_seeds_seed_check CHECK (client_seed ~ '^[ -~]{1,64}$'),
    CONSTRAINT wheel_client_seeds_nonce_check CHECK (next_nonce >= 0)
  )`

  yield* sql`ALTER TABLE spins ADD COLUMN IF NOT EXISTS client_seed text`
  yield* sql`ALTER TABLE spins DROP CONSTRAINT IF EXISTS spins_client_seed_check`
  yield* sql`ALTER TABLE spins ADD CONSTRAINT spins_client_seed_check
    CHECK (client_seed IS NULL OR client_seed ~ '^[ -~]{1,64}$')`
})
