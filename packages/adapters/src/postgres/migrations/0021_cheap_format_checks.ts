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
 * which fails at the first character outside the class. The holder name's digits are counted by
 * `translate` (a copy without them) instead of `regexp_replace`: no regular expression at all. The
 * constraint names stay, except the holder-name digits check, which had PostgreSQL's generated name
 * (`cards_cardholder_name_check1`, the second unnamed CHECK of its column in 0003). A CHECK is
 * replaced only when its definition is the one it replaces: another CHECK under that name (or none)
 * fails the migration, naming it, rather than leave the old check in place or drop a different one.
 * The test evaluates the old and the new definitions side by side on hostile strings.
 *
 * Only the checks on rows written per request change: the client seeds (every spin), a card's
 * fingerprint and holder name (every card added) and a push delivery's token hash (every push).
 * The same patterns on `round_seeds`, `ledger_seals` and `reconciliations` are written once per
 * round, seal or report, and stay as they are.
 *
 * Adding a CHECK reads the whole table under an ACCESS EXCLUSIVE lock, which blocks its reads and
 * writes, and the migrations' one transaction (`Migrations.ts`) holds the four tables' locks until
 * it commits. The new expressions cost 1–3 µs a row (0.92 s for a million client seeds here, the
 * old one 11.5 s), plus reading the table: on a database with millions of spins, cards or push
 * deliveries, run the release at a quiet time, and with no long transaction open on those tables
 * (the ALTER waits for it, and every request on the table queues behind the ALTER).
 */

/** `check`'s text, `was` a fragment of the definition it replaces, `name` its name if renamed. */
interface Replacement {
  readonly table: string
  readonly constraint: string
  readonly was: string
  readonly check: string
  readonly name?: string
}

const REPLACEMENTS: ReadonlyArray<Replacement> = [
  {
    table: "wheel_client_seeds",
    constraint: "wheel_client_seeds_seed_check",
    was: "'^[ -~]{1,64}$'",
    check: "char_length(client_seed) BETWEEN 1 AND 64 AND client_seed !~ '[^ -~]'"
  },
  {
    table: "spins",
    constraint: "spins_client_seed_check",
    was: "'^[ -~]{1,64}$'",
    check: "client_seed IS NULL OR (char_length(client_seed) BETWEEN 1 AND 64 AND client_seed !~ '[^ -~]')"
  },
  {
    table: "cards",
    constraint: "cards_fingerprint_check",
    was: "'^[0-9a-f]{64}$'",
    check: "char_length(fingerprint) = 64 AND fingerprint !~ '[^0-9a-f]'"
  },
  {
    table: "cards",
    constraint: "cards_cardholder_name_check1",
    was: "regexp_replace(cardholder_name, '[^0-9]'",
    check: "char_length(cardholder_name) - char_length(translate(cardholder_name, '0123456789', '')) < 12",
    name: "cards_cardholder_name_digits"
  },
  {
    table: "push_deliveries",
    constraint: "push_deliveries_token_hash_check",
    was: "'^[0-9a-f]{64}$'",
    check: "char_length(token_hash) = 64 AND token_hash !~ '[^0-9a-f]'"
  }
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const { table, constraint, was, check, name } of REPLACEMENTS) {
    const [found] = yield* sql<{ readonly definition: string }>`
      SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint
      WHERE conrelid = ${table}::regclass AND conname = ${constraint} AND contype = 'c'`
    if (found === undefined || !found.definition.includes(was)) {
      return yield* Effect.fail(
        new Error(
          `0021_cheap_format_checks: ${table}.${constraint} is ${found === undefined ? "missing" : `"${found.definition}"`}, not the CHECK on ${was} it replaces`
        )
      )
    }
    yield* sql`ALTER TABLE ${sql(table)} DROP CONSTRAINT ${sql(constraint)},
      ADD CONSTRAINT ${sql(name ?? constraint)} CHECK (${sql.literal(check)})`
  }
})
