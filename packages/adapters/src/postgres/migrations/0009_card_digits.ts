import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Cards keep no digit the mask does not show (CONTRACT §3, issue 14). A number shorter than 16
 * digits is now shown as its first 4 and last 4 (`3714 **** **** 8431`), so its stored prefix
 * shrinks from 6 digits to 4; numbers of 16 digits or more keep their first 8.
 *
 * Which rows were short: `0003_cards` stored the first 8 digits exactly for numbers of 16 or more
 * and the first 6 for every shorter one (its CHECK allowed nothing else, and every writer derived
 * the prefix from the length), so a prefix that is not 8 digits long marks a short number. AMEX
 * issues 15-digit numbers only, so an AMEX row is short whatever its prefix: a row that would
 * contradict the rule loses its extra digits rather than keeps them.
 *
 * The old CHECK goes first (it refuses 4 digits), then the rows, then the new CHECKs: 4 or 8
 * digits, and 4 for AMEX. `IF EXISTS` only tolerates a re-run: were the old CHECK named otherwise,
 * the UPDATE would violate it and the migration fail rather than pass.
 *
 * The UPDATE leaves the old row versions in the table's free space, the WAL and earlier backups
 * until they are overwritten or expire: docs/operations.md says what to do about them.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`ALTER TABLE cards DROP CONSTRAINT IF EXISTS cards_first_digits_check`
  yield* sql`UPDATE cards SET first_digits = left(first_digits, 4)
    WHERE char_length(first_digits) <> 8 OR brand = 'AMEX'`
  yield* sql`ALTER TABLE cards DROP CONSTRAINT IF EXISTS cards_first_digits_visible`
  yield* sql`ALTER TABLE cards ADD CONSTRAINT cards_first_digits_visible
    CHECK (first_digits ~ '^[0-9]{4}([0-9]{4})?$' AND (brand <> 'AMEX' OR char_length(first_digits) = 4))`
})
