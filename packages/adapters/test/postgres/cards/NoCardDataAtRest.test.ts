import { assert, describe, layer } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import { CardsService, decodeNewCard } from "@payments-gaming/domain/cards"
import { DateTime, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { CardsOnPostgres } from "../support/CardsTestDatabase.ts"

interface Registration {
  readonly cardNumber: string
  readonly cvv: string
}

// Every network, several lengths, and refused attempts: none may leave a number or a CVV behind.
const ACCEPTED: ReadonlyArray<Registration> = [
  { cardNumber: "4242424242424242", cvv: "739" },
  { cardNumber: "5555555555554444", cvv: "814" },
  { cardNumber: "2223003122003222", cvv: "926" },
  { cardNumber: "378282246310005", cvv: "5127" },
  { cardNumber: "6011111111111117", cvv: "306" },
  { cardNumber: "5061460410120223210", cvv: "948" },
  { cardNumber: "3566002020360505", cvv: "472" },
  // Shorter than 16 digits: 12 (Maestro) and 14 (Diners), with the 15-digit AMEX above.
  { cardNumber: "501873912643", cvv: "862" },
  { cardNumber: "30569309025904", cvv: "417" }
]
const EXPIRED: Registration = { cardNumber: "4111111111111111", cvv: "683" }
const WRONG_CVV: Registration = { cardNumber: "371449635398431", cvv: "591" }
const ALL = [...ACCEPTED, EXPIRED, WRONG_CVV]

const numbers = ALL.map(({ cardNumber }) => cardNumber)
const cvvs = ALL.map(({ cvv }) => cvv)
// A number in any form: as is, or with separators once everything but digits is dropped.
const NUMBER_PATTERN = `(${numbers.join("|")})`
// A CVV standing alone: not inside a longer run of digits or hex (timestamps, uuids, fingerprints).
const CVV_PATTERN = `(^|[^0-9a-fA-F])(${cvvs.join("|")})([^0-9a-fA-F]|$)`

// A number shorter than 16 digits shows only its first 4 and last 4 (`3782 **** **** 0005`): any of
// the digits between, kept in place, is a leak. A run of digits (standing alone, as above) that
// starts with the first 4 and the next digit (the 6 digits the old schema kept start so), ends with
// the digit before the last 4 and the last 4, or holds the whole hidden middle.
const SHORT_NUMBERS = ALL.map(({ cardNumber }) => cardNumber).filter((digits) => digits.length < 16)
const hiddenMiddleRuns = (digits: string) => {
  const hidden = digits.slice(4, -4)
  return [
    `${digits.slice(0, 4)}${hidden.at(0)}[0-9]*`,
    `[0-9]*${hidden.at(-1)}${digits.slice(-4)}`,
    `[0-9]*${hidden}[0-9]*`
  ]
}
// Not searched in uuid and date/time columns, which cannot hold a run of digits of our choosing: a
// 4- or 5-digit run there (microseconds, a uuid group) would be a match by chance.
const CAN_HOLD_DIGITS_OF_ANY_RUN = (type: string) => !/^(uuid|date|time|timestamp|interval)/.test(type)
const HIDDEN_DIGITS_PATTERN = `(^|[^0-9a-fA-F])(${SHORT_NUMBERS.flatMap(hiddenMiddleRuns).join("|")})([^0-9a-fA-F]|$)`

interface Finding {
  readonly column: string
  readonly rows: number
}

/** Every column of every table and view outside the system catalogs, each value read as text. */
const sweep = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = yield* sql<{
    readonly schema: string
    readonly table: string
    readonly column: string
    readonly type: string
  }>`SELECT table_schema AS schema, table_name AS table, column_name AS column, data_type AS type
    FROM information_schema.columns
    WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_schema NOT LIKE 'pg_toast%'
    ORDER BY table_schema, table_name, ordinal_position`
  const findings: Array<Finding> = []
  for (const { schema, table, column, type } of columns) {
    const value = type === "bytea" ? sql`encode(${sql(column)}, 'escape')` : sql`${sql(column)}::text`
    const [row] = yield* sql<{ readonly hits: number }>`SELECT count(*)::int AS hits
      FROM ${sql(schema)}.${sql(table)}
      WHERE ${value} ~ ${NUMBER_PATTERN}
        OR regexp_replace(${value}, '[^0-9]', '', 'g') ~ ${NUMBER_PATTERN}
        OR ${value} ~ ${CVV_PATTERN}
        OR (${CAN_HOLD_DIGITS_OF_ANY_RUN(type)}::boolean AND ${value} ~ ${HIDDEN_DIGITS_PATTERN})`
    if ((row?.hits ?? 0) > 0) findings.push({ column: `${schema}.${table}.${column}`, rows: row!.hits })
  }
  return { searched: columns.map(({ schema, table, column }) => `${schema}.${table}.${column}`), findings }
})

const register = (userId: string, { cardNumber, cvv }: Registration, expiryYear: number) =>
  Effect.gen(function* () {
    const cards = yield* CardsService
    const card = yield* Effect.orDie(
      decodeNewCard({ cardholderName: "Ada Obi", cardNumber, expiryMonth: 12, expiryYear, cvv })
    )
    return yield* cards.add(userId as UserId, card)
  })

// Both tests run on the live clock: the service judges expiry as a real request would, and the
// pooled SQL client's timers stay off the TestClock.
describe("no card number or CVV at rest", () => {
  layer(CardsOnPostgres, { timeout: "60 seconds" })((it) => {
    it.effect("after registrations, refusals and deletions, no column of any table holds one", () =>
      Effect.gen(function* () {
        const cards = yield* CardsService
        const year = DateTime.getPartUtc(yield* DateTime.now, "year")
        const added = yield* Effect.forEach(ACCEPTED, (registration) =>
          register("at-rest-user", registration, year + 3)
        )
        yield* register("at-rest-other-user", ACCEPTED[0]!, year + 4)

        const duplicate = yield* Effect.flip(register("at-rest-user", ACCEPTED[1]!, year + 5))
        assert.strictEqual(duplicate._tag, "DuplicateCard")
        const expired = yield* Effect.flip(register("at-rest-user", EXPIRED, year - 1))
        assert.strictEqual(expired._tag, "CardValidationError")
        const wrongCvv = yield* Effect.flip(register("at-rest-user", WRONG_CVV, year + 3))
        assert.strictEqual(wrongCvv._tag, "CardValidationError")

        yield* cards.remove("at-rest-user" as UserId, added[2]!.cardId)
        const listed = yield* cards.list("at-rest-user" as UserId, { limit: 50, offset: 0 })
        assert.strictEqual(listed.length, ACCEPTED.length - 1)
        assert.includeMembers(
          listed.map((card) => card.maskedNumber),
          ["3782 **** **** 0005", "5018 **** **** 2643", "3056 **** **** 5904"]
        )

        const { searched, findings } = yield* sweep
        for (const column of ["public.cards.first_digits", "public.cards.last4", "public.cards.fingerprint"]) {
          assert.include(searched, column)
        }
        assert.deepStrictEqual(findings, [])
        assert.isAtLeast(SHORT_NUMBERS.length, 3)
        const sql = yield* SqlClient.SqlClient
        const names = yield* sql<{ readonly name: string }>`SELECT DISTINCT column_name AS name
          FROM information_schema.columns WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`
        for (const { name } of names) {
          assert.notMatch(name, /^(cvv|cvc|cvv2|pan|card_?number|number)$/i)
        }
      }).pipe(TestClock.withLive)
    )

    it.effect("the sweep does find a number, a CVV or a short number's hidden digits wherever one is planted", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE SCHEMA leak_probe`
        yield* sql`CREATE TABLE leak_probe.notes (note text, code smallint, raw bytea)`
        yield* sql`CREATE TABLE leak_probe.short_cards (shown text, leaked text)`
        yield* sql`INSERT INTO leak_probe.notes VALUES
          (${"paid with 4242-4242-4242-4242"}, NULL, NULL),
          (${'{"cvv":"739"}'}, NULL, NULL),
          (NULL, 814, NULL),
          (NULL, NULL, convert_to(${"pan=378282246310005"}, 'UTF8'))`
        // What the mask shows is no leak; the 6 digits the old schema kept, or any hidden run, is.
        yield* sql`INSERT INTO leak_probe.short_cards VALUES
          ('3782', '378282'),
          ('0005', '{"tail":"25904"}'),
          ('5018', 'bin 501873 exp 12/30'),
          ('2643', '912643'),
          ('3782 **** **** 0005', '7391'),
          ('5018 **** **** 2643', NULL)`
        const { findings } = yield* sweep
        yield* sql`DROP SCHEMA leak_probe CASCADE`
        assert.deepStrictEqual(findings, [
          { column: "leak_probe.notes.note", rows: 2 },
          { column: "leak_probe.notes.code", rows: 1 },
          { column: "leak_probe.notes.raw", rows: 1 },
          { column: "leak_probe.short_cards.leaked", rows: 5 }
        ])
      }).pipe(TestClock.withLive)
    )
  })
})
