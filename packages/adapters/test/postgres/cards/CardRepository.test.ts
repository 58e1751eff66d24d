import { assert, describe, layer } from "@effect/vitest"
import * as HmacCardFingerprinter from "@payments-gaming/adapters/cards/HmacCardFingerprinter"
import type { UserId } from "@payments-gaming/domain/auth"
import {
  type CardId,
  CardRepository,
  type CardToStore,
  lastFour,
  luhnCheckDigit,
  MAX_ACTIVE_CARDS,
  storedPrefix
} from "@payments-gaming/domain/cards"
import { DateTime, Effect, Redacted, Result } from "effect"
import { SqlClient } from "effect/sql"
import { CardsOnPostgres, TEST_FINGERPRINT_KEY } from "../support/CardsTestDatabase.ts"

const fingerprinter = HmacCardFingerprinter.make(TEST_FINGERPRINT_KEY)
const limit = { maxActiveCards: MAX_ACTIVE_CARDS }

const numberWith = (prefix: string, length: number, seed: number) => {
  const body = prefix + String(seed).padStart(length - 1 - prefix.length, "0")
  return body + luhnCheckDigit(body)
}

// The repository is given its timestamps, so these tests never move the TestClock: TestClock.setTime
// does not return once the pooled SQL client has run a query under it.
const toStore = (digits: string, change: Partial<CardToStore> = {}) =>
  Effect.gen(function* () {
    const card: CardToStore = {
      cardholderName: "Ada Obi",
      brand: "VISA",
      firstDigits: storedPrefix(digits),
      last4: lastFour(digits),
      fingerprint: yield* fingerprinter.fingerprint(Redacted.make(digits)),
      expiryMonth: 7,
      expiryYear: 2030,
      createdAt: DateTime.makeUnsafe("2026-06-15T10:20:30Z"),
      ...change
    }
    return card
  })

const insert = (userId: string, digits: string, change: Partial<CardToStore> = {}) =>
  Effect.gen(function* () {
    const repository = yield* CardRepository
    return yield* repository.insert(userId as UserId, yield* toStore(digits, change), limit)
  })

const tags = <A, E extends { readonly _tag: string }>(results: ReadonlyArray<Result.Result<A, E>>) =>
  results.map((result) => (Result.isSuccess(result) ? "ok" : result.failure._tag)).sort()

const activeCardsColumn = (userId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ readonly active: number }>`SELECT active_cards AS active FROM card_holders
      WHERE user_id = ${userId}`
    return row?.active
  })

describe("CardRepository on PostgreSQL", () => {
  layer(CardsOnPostgres, { timeout: "60 seconds" })((it) => {
    it.effect("inserts a card, keeping only the prefix, the last four and the fingerprint", () =>
      Effect.gen(function* () {
        const repository = yield* CardRepository
        const visa = yield* insert("insert-user", "4242424242424242")
        assert.match(visa.cardId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
        assert.strictEqual(visa.maskedNumber, "4242 4242 **** 4242")
        assert.strictEqual(visa.last4, "4242")
        assert.strictEqual(visa.brand, "VISA")
        assert.strictEqual(DateTime.formatIso(visa.createdAt), "2026-06-15T10:20:30.000Z")
        const amex = yield* insert("insert-user", "378282246310005", {
          brand: "AMEX",
          createdAt: DateTime.makeUnsafe("2026-06-15T10:20:31Z")
        })
        assert.strictEqual(amex.maskedNumber, "3782 **** **** 0005")
        assert.deepStrictEqual(yield* repository.listByUser("insert-user" as UserId, { limit: 50, offset: 0 }), [
          visa,
          amex
        ])
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ readonly firstDigits: string; readonly fingerprint: string }>`SELECT
            first_digits AS "firstDigits", fingerprint FROM cards WHERE user_id = 'insert-user' ORDER BY created_at, id`
        assert.deepStrictEqual(
          rows.map((row) => row.firstDigits),
          ["42424242", "3782"]
        )
        assert.strictEqual(rows[0]?.fingerprint, yield* fingerprinter.fingerprint(Redacted.make("4242424242424242")))
      })
    )

    it.effect("the same number again for the same user is a DuplicateCard whatever the expiry", () =>
      Effect.gen(function* () {
        yield* insert("dup-user", "5555555555554444", { brand: "MASTERCARD" })
        const again = yield* Effect.flip(
          insert("dup-user", "5555555555554444", { brand: "MASTERCARD", expiryMonth: 1, expiryYear: 2035 })
        )
        assert.strictEqual(again._tag, "DuplicateCard")
        const otherUser = yield* insert("dup-other-user", "5555555555554444", { brand: "MASTERCARD" })
        assert.strictEqual(otherUser.last4, "4444")
        assert.strictEqual(yield* (yield* CardRepository).countActive("dup-user" as UserId), 1)
      })
    )

    it.effect("20 concurrent inserts of the same card: exactly one succeeds", () =>
      Effect.gen(function* () {
        const results = yield* Effect.all(
          Array.from({ length: 20 }, () => insert("race-same-user", "4111111111111111")),
          { concurrency: "unbounded", mode: "result" }
        )
        assert.deepStrictEqual(tags(results), [...Array.from({ length: 19 }, () => "DuplicateCard"), "ok"])
        assert.strictEqual(yield* (yield* CardRepository).countActive("race-same-user" as UserId), 1)
        assert.strictEqual(yield* activeCardsColumn("race-same-user"), 1)
      })
    )

    it.effect(`15 concurrent different cards for one user: exactly ${MAX_ACTIVE_CARDS} succeed`, () =>
      Effect.gen(function* () {
        const results = yield* Effect.all(
          Array.from({ length: 15 }, (_, seed) => insert("race-limit-user", numberWith("4", 16, seed))),
          { concurrency: "unbounded", mode: "result" }
        )
        assert.deepStrictEqual(tags(results), [
          ...Array.from({ length: 5 }, () => "CardLimitReached"),
          ...Array.from({ length: MAX_ACTIVE_CARDS }, () => "ok")
        ])
        assert.strictEqual(yield* (yield* CardRepository).countActive("race-limit-user" as UserId), MAX_ACTIVE_CARDS)
        assert.strictEqual(yield* activeCardsColumn("race-limit-user"), MAX_ACTIVE_CARDS)
      })
    )

    // The limit is checked first in SQL, so this holds the order of the two refusals the contract gives.
    it.effect("at the limit, a number the user already has is still a DuplicateCard, and the count is unchanged", () =>
      Effect.gen(function* () {
        const user = "full-dup-user"
        yield* Effect.forEach(
          Array.from({ length: MAX_ACTIVE_CARDS }, (_, seed) => seed),
          (seed) => insert(user, numberWith("4", 16, seed))
        )
        const duplicate = yield* Effect.flip(insert(user, numberWith("4", 16, 3)))
        assert.strictEqual(duplicate._tag, "DuplicateCard")
        const eleventh = yield* Effect.flip(insert(user, numberWith("4", 16, MAX_ACTIVE_CARDS)))
        assert.strictEqual(eleventh._tag, "CardLimitReached")
        assert.strictEqual(yield* activeCardsColumn(user), MAX_ACTIVE_CARDS)
      })
    )

    it.effect("concurrent deletes and inserts for one user keep the count exact", () =>
      Effect.gen(function* () {
        const repository = yield* CardRepository
        const user = "race-churn-user" as UserId
        const first = yield* Effect.forEach([0, 1, 2, 3, 4, 5, 6, 7], (seed) => insert(user, numberWith("4", 16, seed)))
        const results = yield* Effect.all(
          [
            ...first.map((card) => repository.softDelete(user, card.cardId)),
            ...first.map((card) => repository.softDelete(user, card.cardId)),
            ...[10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21].map((seed) => insert(user, numberWith("4", 16, seed)))
          ],
          { concurrency: "unbounded", mode: "result" }
        )
        const deletes = tags(results.slice(0, 16))
        assert.deepStrictEqual(deletes, [...Array.from({ length: 8 }, () => "CardNotFound"), ...Array(8).fill("ok")])
        const count = yield* repository.countActive(user)
        assert.isAtMost(count, MAX_ACTIVE_CARDS)
        assert.strictEqual(yield* activeCardsColumn(user), count)
        assert.strictEqual((yield* repository.listByUser(user, { limit: 50, offset: 0 })).length, count)
      })
    )

    it.effect("lists a user's active cards oldest first, paged with limit and offset", () =>
      Effect.gen(function* () {
        const repository = yield* CardRepository
        const added = []
        for (let seed = 0; seed < 5; seed++) {
          const createdAt = DateTime.makeUnsafe(Date.UTC(2026, 0, 1, 0, seed))
          added.push(yield* insert("list-user", numberWith("6011", 16, seed), { brand: "DISCOVER", createdAt }))
        }
        yield* insert("list-other-user", numberWith("6011", 16, 0), { brand: "DISCOVER" })
        yield* repository.softDelete("list-user" as UserId, added[1]!.cardId)
        const page = (offset: number, size: number) =>
          Effect.map(repository.listByUser("list-user" as UserId, { limit: size, offset }), (cards) =>
            cards.map((card) => card.cardId)
          )
        const active = [added[0]!, added[2]!, added[3]!, added[4]!].map((card) => card.cardId)
        assert.deepStrictEqual(yield* page(0, 50), active)
        assert.deepStrictEqual(yield* page(0, 2), active.slice(0, 2))
        assert.deepStrictEqual(yield* page(2, 2), active.slice(2, 4))
        assert.deepStrictEqual(yield* page(4, 2), [])
      })
    )

    it.effect("deletes only the user's own active card; a deleted card may be added again", () =>
      Effect.gen(function* () {
        const repository = yield* CardRepository
        const owner = "delete-user" as UserId
        const card = yield* insert(owner, "2223003122003222", { brand: "MASTERCARD" })
        yield* insert("delete-intruder", "4242424242424242")
        const intruder = yield* Effect.flip(repository.softDelete("delete-intruder" as UserId, card.cardId))
        assert.deepStrictEqual(intruder._tag, "CardNotFound")
        const stranger = yield* Effect.flip(repository.softDelete("delete-stranger" as UserId, card.cardId))
        assert.deepStrictEqual(stranger._tag, "CardNotFound")
        const unknown = yield* Effect.flip(
          repository.softDelete(owner, "9b2f6a4e-3c1d-4e5f-8a7b-6c5d4e3f2a1b" as CardId)
        )
        assert.deepStrictEqual(unknown._tag, "CardNotFound")
        assert.strictEqual(yield* repository.countActive(owner), 1)

        yield* repository.softDelete(owner, card.cardId)
        const twice = yield* Effect.flip(repository.softDelete(owner, card.cardId))
        assert.deepStrictEqual(twice._tag, "CardNotFound")
        assert.strictEqual(yield* repository.countActive(owner), 0)
        assert.strictEqual(yield* activeCardsColumn(owner), 0)

        const again = yield* insert(owner, "2223003122003222", { brand: "MASTERCARD" })
        assert.notStrictEqual(again.cardId, card.cardId)
        assert.strictEqual(yield* repository.countActive(owner), 1)
        assert.strictEqual(yield* activeCardsColumn(owner), 1)
      })
    )

    it.effect("the table itself refuses a full card number in any digit column", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO card_holders (user_id) VALUES ('check-user') ON CONFLICT DO NOTHING`
        const attempt = (firstDigits: string, last4: string, name: string, brand = "VISA") =>
          Effect.flip(sql`INSERT INTO cards (user_id, brand, first_digits, last4, fingerprint, cardholder_name,
              expiry_month, expiry_year, created_at)
            VALUES ('check-user', ${brand}, ${firstDigits}, ${last4}, ${"a".repeat(64)}, ${name}, 1, 2030, now())`)
        for (const [firstDigits, last4, name, brand] of [
          ["4242424242424242", "4242", "Ada Obi", "VISA"],
          ["42424242", "4242424242424242", "Ada Obi", "VISA"],
          ["42424242", "4242", "Ada 4242424242424242", "VISA"],
          // More leading digits than any mask shows: 6 (the old short-number prefix), or 8 of an AMEX.
          ["424242", "4242", "Ada Obi", "VISA"],
          ["37828224", "0005", "Ada Obi", "AMEX"]
        ] as const) {
          const error = yield* attempt(firstDigits, last4, name, brand)
          assert.strictEqual(error.reason._tag, "ConstraintError", `${brand} ${firstDigits}`)
        }
      })
    )
  })
})
