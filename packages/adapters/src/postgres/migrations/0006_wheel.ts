import { Effect } from "effect"
import { SqlClient } from "effect/sql"

// The default wheel of CONTRACT §3 in display order, written out rather than computed from the
// domain, so this migration seeds the same rows for ever whatever the code becomes.
const defaultSegments = [
  { segmentId: "seg-₦50", label: "₦50", type: "cash", value: 50, weight: 10 },
  { segmentId: "seg-10coins", label: "10 coins", type: "coin", value: 10, weight: 20 },
  { segmentId: "seg-₦100", label: "₦100", type: "cash", value: 100, weight: 8 },
  { segmentId: "seg-20coins", label: "20 coins", type: "coin", value: 20, weight: 15 },
  { segmentId: "seg-tryagain", label: "Try again", type: "cash", value: 0, weight: 30 },
  { segmentId: "seg-₦500", label: "₦500", type: "cash", value: 500, weight: 5 },
  { segmentId: "seg-50coins", label: "50 coins", type: "coin", value: 50, weight: 10 },
  { segmentId: "seg-₦1,000", label: "₦1,000", type: "cash", value: 1000, weight: 2 }
] as const

/**
 * Spin-and-win: wheels (every version kept, one active), their segments, spins and round seeds.
 *
 * UNIQUE (user_id, round) is what makes "one spin per user per round" hold under any concurrency;
 * the partial unique index on (user_id, idempotency_key) does the same for a repeated key. A round
 * seed is written once (primary key on round) and never updated. Every statement is idempotent.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE TABLE IF NOT EXISTS wheels (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    version integer NOT NULL,
    currency text NOT NULL,
    active boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT wheels_version_key UNIQUE (version),
    CONSTRAINT wheels_version_positive CHECK (version >= 1),
    CONSTRAINT wheels_currency_code CHECK (currency ~ '^[A-Z]{3}$')
  )`
  yield* sql`CREATE UNIQUE INDEX IF NOT EXISTS wheels_one_active ON wheels (active) WHERE active`

  yield* sql`CREATE TABLE IF NOT EXISTS wheel_segments (
    wheel_id bigint NOT NULL REFERENCES wheels (id),
    position smallint NOT NULL,
    segment_id text NOT NULL,
    label text NOT NULL,
    type text NOT NULL,
    value bigint NOT NULL,
    weight bigint NOT NULL,
    PRIMARY KEY (wheel_id, position),
    CONSTRAINT wheel_segments_segment_key UNIQUE (wheel_id, segment_id),
    CONSTRAINT wheel_segments_position_range CHECK (position BETWEEN 0 AND 7),
    CONSTRAINT wheel_segments_type_check CHECK (type IN ('cash', 'coin')),
    CONSTRAINT wheel_segments_value_check CHECK (value >= 0),
    CONSTRAINT wheel_segments_weight_check CHECK (weight >= 0)
  )`

  yield* sql`INSERT INTO wheels (version, currency, active) VALUES (1, 'NGN', true) ON CONFLICT (version) DO NOTHING`
  for (const [position, segment] of defaultSegments.entries()) {
    yield* sql`INSERT INTO wheel_segments (wheel_id, position, segment_id, label, type, value, weight)
      SELECT id, ${position}, ${segment.segmentId}, ${segment.label}, ${segment.type}, ${segment.value}, ${segment.weight}
      FROM wheels WHERE version = 1
      ON CONFLICT (wheel_id, position) DO NOTHING`
  }

  yield* sql`CREATE TABLE IF NOT EXISTS spins (
    id uuid PRIMARY KEY,
    user_id text NOT NULL,
    round text NOT NULL,
    wheel_version integer NOT NULL REFERENCES wheels (version),
    nonce integer NOT NULL,
    draw_value bigint NOT NULL,
    segment_id text NOT NULL,
    prize_type text NOT NULL,
    prize_value bigint NOT NULL,
    idempotency_key text,
    created_at timestamptz NOT NULL,
    CONSTRAINT spins_user_round_key UNIQUE (user_id, round),
    CONSTRAINT spins_round_format CHECK (round ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
    CONSTRAINT spins_nonce_check CHECK (nonce >= 0),
    CONSTRAINT spins_draw_value_check CHECK (draw_value >= 0),
    CONSTRAINT spins_prize_type_check CHECK (prize_type IN ('cash', 'coin')),
    CONSTRAINT spins_prize_value_check CHECK (prize_value >= 0),
    CONSTRAINT spins_idempotency_key_length CHECK (idempotency_key IS NULL OR length(idempotency_key) BETWEEN 1 AND 255)
  )`
  yield* sql`CREATE UNIQUE INDEX IF NOT EXISTS spins_user_idempotency_key ON spins (user_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL`
  // The audit lists a round's spins in the order they were made.
  yield* sql`CREATE INDEX IF NOT EXISTS spins_round_created ON spins (round, created_at, id)`

  yield* sql`CREATE TABLE IF NOT EXISTS round_seeds (
    round text PRIMARY KEY,
    seed bytea NOT NULL,
    commitment text NOT NULL,
    created_at timestamptz NOT NULL,
    CONSTRAINT round_seeds_round_format CHECK (round ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
    CONSTRAINT round_seeds_seed_length CHECK (octet_length(seed) = 32),
    CONSTRAINT round_seeds_commitment_hex CHECK (commitment ~ '^[0-9a-f]{64}$')
  )`
})
