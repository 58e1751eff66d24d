import { assert, describe, layer } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import * as fc from "fast-check"
import cheapFormatChecks from "../../src/postgres/migrations/0021_cheap_format_checks.ts"
import { EmptyDatabase, migrateUpTo } from "../support/TestDatabase.ts"

const PRINTABLE = [" ", "~", "a", "Z", "0", "9", "-", ":"]
const NOT_PRINTABLE = ["\u001f", "\u007f", "\n", "\t", "é", "٣", "😀"]
const HEX = ["0", "9", "a", "f"]
const NOT_HEX = ["g", "A", "F", " ", "\n", "é", "٣"]
const DIGITS = ["0", "5", "9"]
const NOT_DIGITS = ["A", " ", "-", "٣", "０", "é"]

/**
 * Strings near a length bound from valid characters, strings of any characters around it, and
 * strings of exactly the bound with one invalid character anywhere in them.
 */
const near = (valid: ReadonlyArray<string>, invalid: ReadonlyArray<string>, length: number) =>
  fc.oneof(
    fc.string({ unit: fc.constantFrom(...valid), minLength: Math.max(0, length - 2), maxLength: length + 1 }),
    fc.string({ unit: fc.constantFrom(...valid, ...invalid), minLength: 0, maxLength: length + 4 }),
    fc
      .tuple(
        fc.array(fc.constantFrom(...valid), { minLength: length, maxLength: length }),
        fc.nat(length - 1),
        fc.constantFrom(...invalid)
      )
      .map(([chars, at, bad]) => chars.map((char, index) => (index === at ? bad : char)).join(""))
  )

// Each check 0021 rewrites: its name before and after, the column it reads, and values to judge.
const REWRITTEN = [
  {
    table: "wheel_client_seeds",
    before: "wheel_client_seeds_seed_check",
    after: "wheel_client_seeds_seed_check",
    column: "client_seed",
    values: near(PRINTABLE, NOT_PRINTABLE, 64)
  },
  {
    table: "spins",
    before: "spins_client_seed_check",
    after: "spins_client_seed_check",
    column: "client_seed",
    values: near(PRINTABLE, NOT_PRINTABLE, 64)
  },
  {
    table: "cards",
    before: "cards_fingerprint_check",
    after: "cards_fingerprint_check",
    column: "fingerprint",
    values: near(HEX, NOT_HEX, 64)
  },
  {
    table: "push_deliveries",
    before: "push_deliveries_token_hash_check",
    after: "push_deliveries_token_hash_check",
    column: "token_hash",
    values: near(HEX, NOT_HEX, 64)
  },
  {
    table: "cards",
    before: "cards_cardholder_name_check1",
    after: "cards_cardholder_name_digits",
    column: "cardholder_name",
    // Fewer than 12 digits: around 12 digits alone, and digits spread through other characters.
    values: fc.oneof(
      near(DIGITS, NOT_DIGITS, 12),
      fc.string({ unit: fc.constantFrom(...DIGITS, ...DIGITS, ...NOT_DIGITS), minLength: 8, maxLength: 30 })
    )
  }
] as const

describe("migration 0021_cheap_format_checks", () => {
  layer(EmptyDatabase, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("each rewritten CHECK accepts exactly the values the one it replaced accepted", () =>
      Effect.gen(function* () {
        const sql = yield* migrateUpTo("0021")
        const definition = (table: string, name: string) =>
          Effect.map(
            sql<{ readonly definition: string; readonly validated: boolean }>`
              SELECT pg_get_constraintdef(oid) AS definition, convalidated AS validated FROM pg_constraint
              WHERE conrelid = ${table}::regclass AND conname = ${name}`,
            ([row]) => {
              assert.isDefined(row, `${table}.${name}`)
              assert.isTrue(row!.validated, `${table}.${name} is validated`)
              return row!.definition.replace(/^CHECK /, "")
            }
          )
        const old = yield* Effect.forEach(REWRITTEN, ({ table, before }) => definition(table, before))

        yield* cheapFormatChecks

        for (const [index, { table, before, after, column, values }] of REWRITTEN.entries()) {
          const rewritten = yield* definition(table, after)
          assert.notStrictEqual(rewritten, old[index], `${table}.${after} changed`)
          if (before !== after) assert.isEmpty(yield* sql`SELECT 1 FROM pg_constraint WHERE conname = ${before}`)
          // A new seed each run, named in every message below, so a failure can be replayed.
          const seed = Date.now() + index
          const sample = fc.sample(values, { numRuns: 400, seed })
          const label = `${table}.${after} (fast-check seed ${seed})`
          // A CHECK passes unless it is false; the old and the new definition judge every value alike.
          const verdicts = yield* sql<{ readonly value: string; readonly old: boolean; readonly new: boolean }>`
            SELECT ${sql(column)} AS value, (${sql.literal(old[index]!)}) IS NOT FALSE AS old,
              (${sql.literal(rewritten)}) IS NOT FALSE AS new
            FROM unnest(${sample}::text[]) AS judged (${sql(column)})`
          const disagree = verdicts.filter((verdict) => verdict.old !== verdict.new)
          assert.deepStrictEqual(disagree, [], `${label}: ${rewritten}`)
          // The sample holds values either way, so a check that accepted or refused everything would fail.
          assert.isTrue(
            verdicts.some((verdict) => verdict.old),
            `${label}: some accepted`
          )
          assert.isTrue(
            verdicts.some((verdict) => !verdict.old),
            `${label}: some refused`
          )
        }

        // And the table enforces it: a seed one character too long is refused by its CHECK.
        const tooLong = yield* Effect.exit(
          sql`INSERT INTO wheel_client_seeds (user_id, client_seed, next_nonce) VALUES ('u', ${"s".repeat(65)}, 0)`
        )
        assert.isTrue(Exit.isFailure(tooLong))
        assert.include(String(Exit.isFailure(tooLong) ? tooLong.cause : ""), "wheel_client_seeds_seed_check")
        yield* sql`INSERT INTO wheel_client_seeds (user_id, client_seed, next_nonce) VALUES ('u', ${"s".repeat(64)}, 0)`
        // No check on these tables unrolls a repetition bounded at ten or more (`{4}` is cheap), nor runs
        // `regexp_replace`, any more.
        const unrolled = yield* sql<{ readonly name: string }>`
          SELECT conname AS name FROM pg_constraint
          WHERE contype = 'c' AND conrelid::regclass::text IN ('wheel_client_seeds', 'spins', 'cards', 'push_deliveries')
            AND (pg_get_constraintdef(oid) ~ '\\{([0-9]+,)?[0-9]{2,}\\}' OR pg_get_constraintdef(oid) LIKE '%regexp_replace%')`
        assert.deepStrictEqual(unrolled, [])
      })
    )
  })
})

describe("migration 0021_cheap_format_checks on a CHECK it was not written for", () => {
  layer(EmptyDatabase, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("fails, naming the CHECK, rather than drop a different one under the name it expects", () =>
      Effect.gen(function* () {
        const sql = yield* migrateUpTo("0021")
        // A database where the holder name's two CHECKs got each other's generated names.
        yield* sql`ALTER TABLE cards DROP CONSTRAINT cards_cardholder_name_check,
          DROP CONSTRAINT cards_cardholder_name_check1,
          ADD CONSTRAINT cards_cardholder_name_check CHECK (char_length(regexp_replace(cardholder_name, '[^0-9]', '', 'g')) < 12),
          ADD CONSTRAINT cards_cardholder_name_check1 CHECK (char_length(cardholder_name) BETWEEN 2 AND 100)`
        const exit = yield* Effect.exit(cheapFormatChecks)
        assert.isTrue(Exit.isFailure(exit))
        assert.include(
          String(Exit.isFailure(exit) ? Cause.squash(exit.cause) : ""),
          "cards.cards_cardholder_name_check1"
        )
        const kept = yield* sql<{ readonly definition: string }>`
          SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = 'cards_cardholder_name_check1'`
        assert.strictEqual(kept.length, 1, "the CHECK under that name is still there")
        assert.include(kept[0]?.definition, "100", "and it is still the length check")
      })
    )
  })
})
