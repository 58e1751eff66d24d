import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The same format checks, at a fraction of their cost (issue 35).
 *
 * PostgreSQL's regular expressions unroll a bounded repetition: `^[ -~]{1,64}$` becomes an
 * automaton of 64 states, and so does `^[0-9a-f]{64}$`. Matching a 32-character client seed
 * against the first cost 9–15 µs, a 64-character hash against the second 9 µs (100,000
 * evaluations in one `SELECT`), against 0.4–0.6 and 2.3 µs for the forms below. A spin checks
 * two client seeds (the spin's and the player's stored one, on every insert and every nonce
 * advance): about 0.02–0.03 ms of PostgreSQL's 0.65–0.78 ms per spin (docs/benchmarks.md,
 * "Fourteenth session").
 *
 * Each CHECK is replaced by one that accepts exactly the same values: a length bound on
 * `char_length` (characters, as the pattern counts them) and a negated class with no repetition,
 * which fails at the first character outside the class. `translate` counts the card holder's
 * digits where `regexp_replace` built a copy of the name. The constraint names stay, except the
 * holder-name digits check, which had PostgreSQL's generated name (`cards_cardholder_name_check1`);
 * the test evaluates the old and the new definitions side by side on hostile strings.
 *
 * Only the checks on rows written per request change: the client seeds (every spin), a card's
 * fingerprint and holder name (every card added) and a push delivery's token hash (every push).
 * The same patterns on `round_seeds`, `ledger_seals` and `reconciliations` are written once per
 * round, seal or report, and stay as they are.
 *
 * Adding a CHECK reads the whole table under the lock its ALTER takes; the new expressions cost
 * about a microsecond a row, so a table of a million spins holds the lock about a second.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`ALTER TABLE wheel_client_seeds DROP CONSTRAINT IF EXISTS wheel_client_seeds_seed_check,
    ADD CONSTRAINT wheel_client_seeds_seed_check
      CHECK (char_length(client_seed) BETWEEN 1 AND 64 AND client_seed !~ '[^ -~]')`
  yield* sql`ALTER TABLE spins DROP CONSTRAINT IF EXISTS spins_client_seed_check,
    ADD CONSTRAINT spins_client_seed_check
      CHECK (client_seed IS NULL OR (char_length(client_seed) BETWEEN 1 AND 64 AND client_seed !~ '[^ -~]'))`
  yield* sql`ALTER TABLE cards DROP CONSTRAINT IF EXISTS cards_fingerprint_check,
    ADD CONSTRAINT cards_fingerprint_check
      CHECK (char_length(fingerprint) = 64 AND fingerprint !~ '[^0-9a-f]'),
    DROP CONSTRAINT IF EXISTS cards_cardholder_name_check1,
    ADD CONSTRAINT cards_cardholder_name_digits
      CHECK (char_length(cardholder_name) - char_length(translate(cardholder_name, '0123456789', '')) < 12)`
  yield* sql`ALTER TABLE push_deliveries DROP CONSTRAINT IF EXISTS push_deliveries_token_hash_check,
    ADD CONSTRAINT push_deliveries_token_hash_check
      CHECK (char_length(token_hash) = 64 AND token_hash !~ '[^0-9a-f]')`
})
