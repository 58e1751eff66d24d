import { assert, describe, it, vi } from "@effect/vitest"
import { DateTime, Effect, Logger, Redacted, Schema } from "effect"
import { decodeNewCard } from "../../src/cards/decodeNewCard.ts"
import { Card, type CardId, NewCard, UtcSecondsTimestamp } from "../../src/cards/Model.ts"
import { CARD_KEYS } from "../support/cardFixtures.ts"

const NUMBER = "5399831234561237"
const CVV = "731"
const valid = { cardholderName: "  Ada Obi  ", cardNumber: NUMBER, expiryMonth: 7, expiryYear: 2030, cvv: CVV }

const issuesOf = (input: unknown) =>
  Effect.flip(decodeNewCard(input)).pipe(Effect.map((error) => error.issues.map(({ path }) => path)))

describe("NewCard", () => {
  it.effect("decodes a valid card, trimming the name", () =>
    Effect.gen(function* () {
      const card = yield* decodeNewCard(valid)
      assert.instanceOf(card, NewCard)
      assert.strictEqual(card.cardholderName, "Ada Obi")
      assert.strictEqual(Redacted.value(card.cardNumber), NUMBER)
      assert.strictEqual(Redacted.value(card.cvv), CVV)
      assert.strictEqual(card.expiryMonth, 7)
      assert.strictEqual(card.expiryYear, 2030)
    })
  )

  it.effect("lists every broken field at once, each with a message that does not quote the input", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        decodeNewCard({
          cardholderName: " A ",
          cardNumber: "5399831234561234",
          expiryMonth: 13,
          expiryYear: 30,
          cvv: "7a"
        })
      )
      assert.deepStrictEqual(
        error.issues.map(({ path }) => path),
        ["cardholderName", "cardNumber", "expiryMonth", "expiryYear", "cvv"]
      )
      for (const { message } of error.issues) {
        assert.isFalse(message.includes("5399831234561234"), message)
        assert.isAbove(message.length, 10)
      }
    })
  )

  it.effect("counts digits of any script in the name after NFKC, and refuses a lone surrogate", () =>
    Effect.gen(function* () {
      const fullwidth = [...NUMBER].map((digit) => String.fromCodePoint(0xff10 + Number(digit))).join("")
      const arabicIndic = [...NUMBER].map((digit) => String.fromCodePoint(0x0660 + Number(digit))).join("")
      const devanagari = [...NUMBER].map((digit) => String.fromCodePoint(0x0966 + Number(digit))).join("")
      const circled = [...NUMBER.slice(0, 12)]
        .map((digit) => (digit === "0" ? "\u24ea" : String.fromCodePoint(0x245f + Number(digit))))
        .join("")
      for (const name of [
        `Ada ${fullwidth}`,
        `Ada ${arabicIndic}`,
        `Ada ${devanagari}`,
        `Ada ${circled}`,
        `Ada 5399${arabicIndic.slice(4)}`
      ]) {
        const error = yield* Effect.flip(decodeNewCard({ ...valid, cardholderName: name }))
        assert.deepStrictEqual(
          error.issues.map(({ path, message }) => [path, message]),
          [["cardholderName", "cardholderName must not contain a card number"]],
          name
        )
      }
      // Eleven digits of any script are still a name (a flat number, say); the twelfth is refused.
      assert.strictEqual(
        (yield* decodeNewCard({ ...valid, cardholderName: `Ada ${arabicIndic.slice(0, 11)}` })).cardholderName.length,
        15
      )
      for (const name of ["Ada \ud800Obi", "Ada Obi\udfff", "\udc00\ud800 Ada"]) {
        const error = yield* Effect.flip(decodeNewCard({ ...valid, cardholderName: name }))
        assert.deepStrictEqual(
          error.issues.map(({ path }) => path),
          ["cardholderName"],
          JSON.stringify(name)
        )
      }
      // A pair is a character like any other.
      assert.strictEqual(
        (yield* decodeNewCard({ ...valid, cardholderName: "Ada \ud83d\ude00" })).cardholderName,
        "Ada \u{1f600}"
      )
    })
  )

  it.effect("refuses each rule of each field", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ cardholderName: "A" }, "cardholderName"],
        [{ cardholderName: "x".repeat(101) }, "cardholderName"],
        [{ cardholderName: "Ada\u0007Obi" }, "cardholderName"],
        [{ cardholderName: `Ada ${NUMBER}` }, "cardholderName"],
        [{ cardholderName: 42 }, "cardholderName"],
        [{ cardNumber: "5399 8312 3456 1237" }, "cardNumber"],
        [{ cardNumber: "42424242424" }, "cardNumber"],
        [{ cardNumber: "42424242424242424242" }, "cardNumber"],
        [{ cardNumber: "5399831234561234" }, "cardNumber"],
        [{ cardNumber: 5399831234561237 }, "cardNumber"],
        [{ cardNumber: "" }, "cardNumber"],
        [{ expiryMonth: 0 }, "expiryMonth"],
        [{ expiryMonth: 1.5 }, "expiryMonth"],
        [{ expiryMonth: "7" }, "expiryMonth"],
        [{ expiryYear: 999 }, "expiryYear"],
        [{ expiryYear: 10000 }, "expiryYear"],
        [{ cvv: "12" }, "cvv"],
        [{ cvv: "12345" }, "cvv"],
        [{ cvv: "12a" }, "cvv"],
        [{ cvv: 123 }, "cvv"],
        [{ cvv: undefined }, "cvv"]
      ]
      for (const [change, path] of cases) {
        assert.deepStrictEqual(yield* issuesOf({ ...valid, ...change }), [path], JSON.stringify(change))
      }
      assert.deepStrictEqual(yield* issuesOf(null), [""])
    })
  )

  it.effect("keeps the number and the CVV out of String, JSON, console.log and Effect's loggers", () =>
    Effect.gen(function* () {
      const card = yield* decodeNewCard(valid)
      const printed: Array<string> = [String(card.cardNumber), `${card.cvv}`, JSON.stringify(card)]
      const spy = vi.spyOn(console, "log").mockImplementation(() => {})
      try {
        console.log(card)
        console.log(card.cardNumber, card.cvv)
        printed.push(...spy.mock.calls.map((args) => args.map((arg) => String(arg)).join(" ")))
      } finally {
        spy.mockRestore()
      }
      const logged: Array<string> = []
      const capture = Logger.layer([
        Logger.map(Logger.formatJson, (line) => logged.push(line)),
        Logger.map(Logger.formatLogFmt, (line) => logged.push(line))
      ])
      yield* Effect.logInfo("card", card, card.cardNumber).pipe(
        Effect.annotateLogs({ cvv: card.cvv }),
        Effect.provide(capture)
      )
      printed.push(...logged)
      assert.isAbove(logged.length, 0)
      assert.include(JSON.stringify(card), "<redacted>")
      for (const text of printed) {
        assert.notInclude(text, NUMBER)
        assert.notInclude(text, CVV)
      }
    })
  )
})

describe("Card", () => {
  const card: Card = {
    cardId: "7b0e0b3c-0b8e-4c55-9a59-8d1a3b1c2d3e" as CardId,
    cardholderName: "Ada Obi",
    brand: "MASTERCARD",
    last4: "1237",
    maskedNumber: "5399 8312 **** 1237",
    expiryMonth: 7,
    expiryYear: 2030,
    createdAt: DateTime.makeUnsafe("2026-11-21T18:30:12.789Z")
  }

  it("encodes in the spec's key order with createdAt to the second, suffixed Z", () => {
    const encoded = Schema.encodeSync(Card)(card)
    assert.deepStrictEqual(Object.keys(encoded), CARD_KEYS)
    assert.strictEqual(encoded.createdAt, "2026-11-21T18:30:12Z")
    assert.strictEqual(
      JSON.stringify(encoded),
      '{"cardId":"7b0e0b3c-0b8e-4c55-9a59-8d1a3b1c2d3e","cardholderName":"Ada Obi","brand":"MASTERCARD",' +
        '"last4":"1237","maskedNumber":"5399 8312 **** 1237","expiryMonth":7,"expiryYear":2030,' +
        '"createdAt":"2026-11-21T18:30:12Z"}'
    )
  })

  it("decodes only whole-second UTC timestamps", () => {
    const decode = Schema.decodeUnknownExit(UtcSecondsTimestamp)
    const decoded = Schema.decodeUnknownSync(UtcSecondsTimestamp)("2026-11-21T18:30:12Z")
    assert.strictEqual(DateTime.toEpochMillis(decoded), Date.UTC(2026, 10, 21, 18, 30, 12))
    for (const text of ["2026-11-21T18:30:12.000Z", "2026-11-21T18:30:12+01:00", "2026-11-21 18:30:12Z", "x"]) {
      assert.isTrue(decode(text)._tag === "Failure", text)
    }
  })
})
