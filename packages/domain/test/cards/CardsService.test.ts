import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Exit, Layer, Logger, Option, Redacted, Schema } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import type { UserId } from "../../src/auth/Model.ts"
import { CardRepository } from "../../src/cards/CardRepository.ts"
import { CardsService } from "../../src/cards/CardsService.ts"
import { decodeNewCard } from "../../src/cards/decodeNewCard.ts"
import { luhnCheckDigit } from "../../src/cards/Luhn.ts"
import { type CardId, MAX_ACTIVE_CARDS, NewCard } from "../../src/cards/Model.ts"
import { BRAND_RULES, detectWithRules, layerMemory } from "../../src/cards/testing.ts"

const TestLayer = CardsService.layer.pipe(Layer.provideMerge(layerMemory))
const NOW = Date.parse("2026-06-15T10:20:30.456Z")
const ada = "user-ada" as UserId
const bola = "user-bola" as UserId

const request = (change: Record<string, unknown> = {}) => ({
  cardholderName: " Ada Obi ",
  cardNumber: "5399831234561237",
  expiryMonth: 7,
  expiryYear: 2030,
  cvv: "731",
  ...change
})

/** A Luhn-valid number of `length` digits starting with `prefix`, the rest from `seed`. */
const numberWith = (prefix: string, length: number, seed: number) => {
  const body = prefix + String(seed).padStart(length - 1 - prefix.length, "0")
  return body + luhnCheckDigit(body)
}

const add = (userId: UserId, change: Record<string, unknown> = {}) =>
  Effect.gen(function* () {
    const cards = yield* CardsService
    return yield* cards.add(userId, yield* Effect.orDie(decodeNewCard(request(change))))
  })

const run = <A, E>(effect: Effect.Effect<A, E, CardsService | CardRepository>) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(NOW)
    return yield* effect
  }).pipe(Effect.provide(TestLayer))

describe("CardsService", () => {
  it.effect("registers a card and keeps only what may be kept", () =>
    run(
      Effect.gen(function* () {
        const card = yield* add(ada)
        assert.strictEqual(card.cardholderName, "Ada Obi")
        assert.strictEqual(card.brand, "MASTERCARD")
        assert.strictEqual(card.last4, "1237")
        assert.strictEqual(card.maskedNumber, "5399 8312 **** 1237")
        assert.strictEqual(card.expiryMonth, 7)
        assert.strictEqual(card.expiryYear, 2030)
        assert.strictEqual(DateTime.formatIso(card.createdAt), "2026-06-15T10:20:30.000Z")
        const listed = yield* (yield* CardsService).list(ada, { limit: 50, offset: 0 })
        assert.deepStrictEqual(listed, [card])
      })
    )
  )

  it.effect("reports every broken rule at once and stores nothing", () =>
    run(
      Effect.gen(function* () {
        const amex = yield* Effect.flip(
          add(ada, { cardNumber: "378282246310005", expiryMonth: 5, expiryYear: 2026, cvv: "123" })
        )
        assert.strictEqual(amex._tag, "CardValidationError")
        if (amex._tag === "CardValidationError") {
          assert.deepStrictEqual(
            amex.issues.map(({ path }) => path),
            ["expiryMonth", "cvv"]
          )
        }
        const unknown = yield* Effect.flip(add(ada, { cardNumber: numberWith("9999", 16, 1), expiryYear: 2050 }))
        assert.strictEqual(unknown._tag, "CardValidationError")
        if (unknown._tag === "CardValidationError") {
          assert.deepStrictEqual(
            unknown.issues.map(({ path }) => path),
            ["cardNumber", "expiryYear"]
          )
        }
        assert.strictEqual(yield* (yield* CardRepository).countActive(ada), 0)
      })
    )
  )

  it.effect("refuses the same number twice for one user whatever the expiry; another user may add it", () =>
    run(
      Effect.gen(function* () {
        yield* add(ada)
        const again = yield* Effect.flip(add(ada, { expiryMonth: 1, expiryYear: 2031, cardholderName: "A Obi" }))
        assert.strictEqual(again._tag, "DuplicateCard")
        const other = yield* add(bola)
        assert.strictEqual(other.last4, "1237")
      })
    )
  )

  it.effect(`holds at most ${MAX_ACTIVE_CARDS} active cards per user`, () =>
    run(
      Effect.gen(function* () {
        const cards = yield* CardsService
        const added = []
        for (let seed = 0; seed < MAX_ACTIVE_CARDS; seed++) {
          added.push(yield* add(ada, { cardNumber: numberWith("4", 16, seed) }))
        }
        const over = yield* Effect.flip(add(ada, { cardNumber: numberWith("4", 16, 99) }))
        assert.strictEqual(over._tag, "CardLimitReached")
        assert.strictEqual(over.message, `A user may register at most ${MAX_ACTIVE_CARDS} cards; delete one first`)
        yield* cards.remove(ada, added[0]!.cardId)
        yield* add(ada, { cardNumber: numberWith("4", 16, 99) })
        assert.strictEqual(yield* (yield* CardRepository).countActive(ada), MAX_ACTIVE_CARDS)
      })
    )
  )

  it.effect("deletes only the caller's own active cards; a deleted card may be added again", () =>
    run(
      Effect.gen(function* () {
        const cards = yield* CardsService
        const card = yield* add(ada)
        const notYours = yield* Effect.flip(cards.remove(bola, card.cardId))
        assert.strictEqual(notYours._tag, "CardNotFound")
        const unknown = yield* Effect.flip(cards.remove(ada, "00000000-0000-4000-8000-00000000ffff" as CardId))
        assert.strictEqual(unknown._tag, "CardNotFound")
        yield* cards.remove(ada, card.cardId)
        const twice = yield* Effect.flip(cards.remove(ada, card.cardId))
        assert.strictEqual(twice._tag, "CardNotFound")
        assert.deepStrictEqual(yield* cards.list(ada, { limit: 50, offset: 0 }), [])
        const again = yield* add(ada)
        assert.notStrictEqual(again.cardId, card.cardId)
      })
    )
  )

  it.effect("lists a user's cards oldest first, paged", () =>
    run(
      Effect.gen(function* () {
        const cards = yield* CardsService
        const added = []
        for (let seed = 0; seed < 5; seed++) {
          added.push(yield* add(ada, { cardNumber: numberWith("6011", 16, seed) }))
          yield* TestClock.adjust("1 second")
        }
        yield* add(bola)
        const ids = (page: { limit: number; offset: number }) =>
          Effect.map(cards.list(ada, page), (list) => list.map((card) => card.cardId))
        assert.deepStrictEqual(
          yield* ids({ limit: 2, offset: 0 }),
          added.slice(0, 2).map((card) => card.cardId)
        )
        assert.deepStrictEqual(
          yield* ids({ limit: 2, offset: 4 }),
          added.slice(4).map((card) => card.cardId)
        )
        assert.deepStrictEqual(yield* ids({ limit: 2, offset: 5 }), [])
      })
    )
  )

  it.effect("never logs the number or the CVV, on success or refusal", () => {
    const logged: Array<string> = []
    const capture = Logger.layer([
      Logger.map(Logger.formatJson, (line) => logged.push(line)),
      Logger.map(Logger.formatLogFmt, (line) => logged.push(line))
    ])
    return run(
      Effect.gen(function* () {
        yield* add(ada)
        yield* Effect.flip(add(ada))
        yield* Effect.flip(add(ada, { cvv: "7310" }))
        yield* Effect.flip(add(bola, { expiryYear: 2020 }).pipe(Effect.tapCause(Effect.logError)))
        // A refused decode keeps the offending input inside its issue; logging the error must not show it.
        yield* Effect.flip(
          Schema.decodeUnknownEffect(NewCard)(request({ cardNumber: "5399831234561238", cvv: "7319" }), {
            errors: "all"
          }).pipe(Effect.tapCause(Effect.logError))
        )
        yield* add(bola).pipe(Effect.flatMap((card) => Effect.logInfo("added", card)))
      }).pipe(Effect.provide(capture))
    ).pipe(
      Effect.andThen(
        Effect.sync(() => {
          assert.isAbove(logged.length, 0)
          assert.isTrue(logged.some((line) => line.includes("Card registered")))
          assert.isTrue(logged.some((line) => line.includes("SchemaError")))
          for (const line of logged) {
            assert.notInclude(line, "5399831234561237")
            assert.notInclude(line, "5399831234561238")
            assert.notInclude(line, "7319")
            assert.notInclude(line, "731")
          }
        })
      )
    )
  })

  describe("properties", () => {
    const supportedNumber = fc
      .constantFrom(...BRAND_RULES)
      .chain((rule) =>
        fc.tuple(
          fc.constantFrom(...rule.prefixes),
          fc.constantFrom(...rule.lengths),
          fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 19, maxLength: 19 })
        )
      )
      .chain(([[from, to], length, filler]) =>
        fc.integer({ min: Number(from), max: Number(to) }).map((prefix) => {
          const body = (String(prefix).padStart(from.length, "0") + filler.join("")).slice(0, length - 1)
          return body + luhnCheckDigit(body)
        })
      )

    const expectedMask = (digits: string) =>
      digits.length >= 16
        ? `${digits.slice(0, 4)} ${digits.slice(4, 8)} **** ${digits.slice(-4)}`
        : `${digits.slice(0, 4)} **** **** ${digits.slice(-4)}`

    it.effect("every Luhn-valid number of a supported network is accepted and masked by the rule", () =>
      run(
        Effect.gen(function* () {
          const context = yield* Effect.context<CardsService | CardRepository>()
          const runSync = Effect.runSyncExitWith(context)
          let user = 0
          fc.assert(
            fc.property(supportedNumber, (digits) => {
              const brand = Option.getOrThrow(detectWithRules(digits))
              const exit = runSync(
                add(`prop-${user++}` as UserId, { cardNumber: digits, cvv: brand === "AMEX" ? "7310" : "731" })
              )
              assert.isTrue(Exit.isSuccess(exit), `${digits}: ${String(exit)}`)
              if (Exit.isSuccess(exit)) {
                assert.strictEqual(exit.value.brand, brand)
                assert.strictEqual(exit.value.maskedNumber, expectedMask(digits))
                assert.strictEqual(exit.value.last4, digits.slice(-4))
              }
            })
          )
        })
      )
    )

    it.effect("any single-digit change to such a number is refused", () =>
      Effect.gen(function* () {
        fc.assert(
          fc.property(supportedNumber, fc.nat(), fc.integer({ min: 1, max: 9 }), (digits, at, shift) => {
            const index = at % digits.length
            const changed =
              digits.slice(0, index) + String((Number(digits[index]) + shift) % 10) + digits.slice(index + 1)
            const exit = Effect.runSyncExit(decodeNewCard(request({ cardNumber: changed })))
            assert.isTrue(Exit.isFailure(exit), changed)
            const error = Effect.runSync(Effect.flip(decodeNewCard(request({ cardNumber: changed }))))
            assert.deepStrictEqual(
              error.issues.map(({ path }) => path),
              ["cardNumber"]
            )
            assert.notInclude(JSON.stringify(error), changed)
          })
        )
      })
    )

    it("the request's number stays redacted whatever it is", () => {
      fc.assert(
        fc.property(supportedNumber, (digits) => {
          const card = Effect.runSync(decodeNewCard(request({ cardNumber: digits })))
          assert.strictEqual(Redacted.value(card.cardNumber), digits)
          assert.notInclude(JSON.stringify(card), digits)
          assert.notInclude(String(card.cardNumber), digits)
        })
      )
    })
  })
})
