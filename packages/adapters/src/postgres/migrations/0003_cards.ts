import { Effect } from "effect"
import { SqlClient } from "effect/sql"

// Payment cards (CONTRACT §3). Neither the full number nor the CVV has a column: a card is its
// brand, its first 6 or 8 digits, its last 4 and a keyed HMAC fingerprint. The CHECKs make the
// table refuse anything longer, so a bug upstream cannot quietly start storing numbers.
// Idempotent (IF NOT EXISTS), so applying it again is harmless.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // One row per user who ever registered a card. Every insert and delete of a card locks its
  // user's row first, so one user's card changes run one after the other and `active_cards` (kept in
  // the same transactions) is exact; other users are not held up.
  yield* sql`CREATE TABLE IF NOT EXISTS card_holders (
    user_id text PRIMARY KEY,
    active_cards integer NOT NULL DEFAULT 0 CHECK (active_cards >= 0),
    created_at timestamptz NOT NULL DEFAULT now()
  )`

  yield* sql`CREATE TABLE IF NOT EXISTS cards (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id text NOT NULL REFERENCES card_holders (user_id),
    brand text NOT NULL
      CHECK (brand IN ('VISA', 'MASTERCARD', 'AMEX', 'DISCOVER', 'VERVE', 'JCB', 'DINERS', 'UNIONPAY', 'MAESTRO')),
    first_digits text NOT NULL CHECK (first_digits ~ '^[0-9]{6}([0-9]{2})?$'),
    last4 text NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
    fingerprint text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
    cardholder_name text NOT NULL
      CHECK (char_length(cardholder_name) BETWEEN 2 AND 100)
      CHECK (char_length(regexp_replace(cardholder_name, '[^0-9]', '', 'g')) < 12),
    expiry_month smallint NOT NULL CHECK (expiry_month BETWEEN 1 AND 12),
    expiry_year smallint NOT NULL CHECK (expiry_year BETWEEN 1000 AND 9999),
    created_at timestamptz NOT NULL,
    deleted_at timestamptz NULL
  )`

  // A card number at most once among a user's active cards, however many requests race.
  yield* sql`CREATE UNIQUE INDEX IF NOT EXISTS cards_user_fingerprint_active
    ON cards (user_id, fingerprint) WHERE deleted_at IS NULL`

  // A user's active cards, in list order.
  yield* sql`CREATE INDEX IF NOT EXISTS cards_user_active ON cards (user_id, created_at, id) WHERE deleted_at IS NULL`
})
