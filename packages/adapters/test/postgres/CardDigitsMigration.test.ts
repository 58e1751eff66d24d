import { assert, describe, layer } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import { CardRepository } from "@payments-gaming/domain/cards"
import { Effect } from "effect"
import * as CardRepositoryPg from "../../src/postgres/CardRepository.ts"
import cardDigits from "../../src/postgres/migrations/0009_card_digits.ts"
import { EmptyDatabase, migrateUpTo } from "../support/TestDatabase.ts"

// Cards as `0003_cards` kept them: the first 6 digits of a number shorter than 16, the first 8
// otherwise. [brand, first_digits, last4, deleted, the full number they came from]
const OLD_ROWS = [
  ["VISA", "42424242", "4242", false, "4242424242424242"],
  ["AMEX", "378282", "0005", false, "378282246310005"],
  ["MAESTRO", "501873", "2643", false, "501873912643"],
  ["DINERS", "305693", "5904", true, "30569309025904"],
  ["VERVE", "50614604", "3210", false, "5061460410120223210"],
  // Not written by the old code (AMEX numbers have 15 digits), but allowed by its CHECK: judged short.
  ["AMEX", "37144963", "8431", false, "371449635398431"]
] as const

describe("migration 0009_card_digits", () => {
  layer(EmptyDatabase, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("keeps only the digits the mask shows of cards written under the old schema", () =>
      Effect.gen(function* () {
        const sql = yield* migrateUpTo("0009")
        yield* sql`INSERT INTO card_holders (user_id, active_cards) VALUES ('old-user', 5)`
        let second = 0
        for (const [brand, firstDigits, last4, deleted] of OLD_ROWS) {
          yield* sql`INSERT INTO cards (user_id, brand, first_digits, last4, fingerprint, cardholder_name,
              expiry_month, expiry_year, created_at, deleted_at)
            VALUES ('old-user', ${brand}, ${firstDigits}, ${last4}, ${String(second).repeat(64)}, 'Ada Obi', 7, 2030,
              ${new Date(Date.UTC(2026, 5, 15, 10, 20, second++))}, ${deleted ? new Date() : null})`
        }

        yield* cardDigits

        const rows = yield* sql<{ readonly brand: string; readonly firstDigits: string; readonly last4: string }>`
          SELECT brand, first_digits AS "firstDigits", last4 FROM cards ORDER BY created_at`
        assert.deepStrictEqual(
          rows.map((row) => [row.brand, row.firstDigits, row.last4]),
          [
            ["VISA", "42424242", "4242"],
            ["AMEX", "3782", "0005"],
            ["MAESTRO", "5018", "2643"],
            ["DINERS", "3056", "5904"],
            ["VERVE", "50614604", "3210"],
            ["AMEX", "3714", "8431"]
          ]
        )
        // Nothing kept is a digit the mask hides: the stored digits are exactly those the mask shows.
        for (const [index, row] of rows.entries()) {
          const number = OLD_ROWS[index]![4]
          const shown = number.length >= 16 ? number.slice(0, 8) : number.slice(0, 4)
          assert.strictEqual(row.firstDigits + row.last4, shown + number.slice(-4), number)
        }

        // The list answers the contract's mask from the migrated rows.
        const repository = yield* Effect.provide(CardRepository, CardRepositoryPg.layer)
        const listed = yield* repository.listByUser("old-user" as UserId, { limit: 50, offset: 0 })
        assert.deepStrictEqual(
          listed.map((card) => card.maskedNumber),
          [
            "4242 4242 **** 4242",
            "3782 **** **** 0005",
            "5018 **** **** 2643",
            "5061 4604 **** 3210",
            "3714 **** **** 8431"
          ]
        )

        // The new CHECK allows exactly what is stored now: 4 or 8 digits, 4 for AMEX.
        const attempt = (brand: string, firstDigits: string) =>
          Effect.exit(sql`INSERT INTO cards (user_id, brand, first_digits, last4, fingerprint, cardholder_name,
              expiry_month, expiry_year, created_at)
            VALUES ('old-user', ${brand}, ${firstDigits}, '1111', ${"f".repeat(64)}, 'Ada Obi', 7, 2030, now())
            RETURNING id`)
        for (const [brand, firstDigits] of [
          ["VISA", "424242"],
          ["VISA", "4242424"],
          ["VISA", "424242424"],
          ["AMEX", "37828224"]
        ] as const) {
          const exit = yield* attempt(brand, firstDigits)
          assert.isTrue(exit._tag === "Failure", `${brand} ${firstDigits} must be refused`)
        }
        for (const [brand, firstDigits] of [
          ["AMEX", "3714"],
          ["VISA", "41111111"]
        ] as const) {
          const exit = yield* attempt(brand, firstDigits)
          assert.isTrue(exit._tag === "Success", `${brand} ${firstDigits} must be accepted`)
          yield* sql`DELETE FROM cards WHERE fingerprint = ${"f".repeat(64)}`
        }
      })
    )
  })
})
