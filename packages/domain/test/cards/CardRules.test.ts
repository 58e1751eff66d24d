import { assert, describe, it } from "@effect/vitest"
import { DateTime, Option, Result } from "effect"
import {
  type CardFacts,
  cardRuleIssues,
  checkCardRules,
  expiresAt,
  requiredCvvLength
} from "../../src/cards/CardRules.ts"

const at = (iso: string) => DateTime.makeUnsafe(iso)
const facts = (change: Partial<CardFacts> = {}): CardFacts => ({
  brand: Option.some("VISA"),
  expiryMonth: 6,
  expiryYear: 2027,
  cvvLength: 3,
  ...change
})
const paths = (input: CardFacts, now: DateTime.Utc) => cardRuleIssues(input, now).map(({ path }) => path)

describe("CardRules", () => {
  it("a card is valid through the last millisecond of its expiry month in UTC", () => {
    const june = facts({ expiryMonth: 6, expiryYear: 2027 })
    assert.deepStrictEqual(paths(june, at("2027-06-30T23:59:59.999Z")), [])
    assert.deepStrictEqual(paths(june, at("2027-07-01T00:00:00.000Z")), ["expiryMonth"])
    assert.deepStrictEqual(paths(june, at("2028-01-01T00:00:00.000Z")), ["expiryYear"])
  })

  it("December expires on the first of January", () => {
    assert.strictEqual(DateTime.formatIso(expiresAt(12, 2027)), "2028-01-01T00:00:00.000Z")
    const december = facts({ expiryMonth: 12, expiryYear: 2027 })
    assert.deepStrictEqual(paths(december, at("2027-12-31T23:59:59.999Z")), [])
    assert.deepStrictEqual(paths(december, at("2028-01-01T00:00:00.000Z")), ["expiryYear"])
  })

  it("the expiry year may be at most 20 years after the current UTC year", () => {
    const now = at("2026-12-31T23:59:59.000Z")
    assert.deepStrictEqual(paths(facts({ expiryMonth: 12, expiryYear: 2046 }), now), [])
    const tooFar = cardRuleIssues(facts({ expiryMonth: 1, expiryYear: 2047 }), now)
    assert.deepStrictEqual(tooFar, [{ path: "expiryYear", message: "expiryYear must be at most 2046" }])
    // One second later it is 2027 in UTC, and 2047 becomes acceptable.
    assert.deepStrictEqual(paths(facts({ expiryMonth: 1, expiryYear: 2047 }), at("2027-01-01T00:00:00Z")), [])
  })

  it("the CVV has 4 digits for AMEX and 3 for every other network", () => {
    assert.strictEqual(requiredCvvLength("AMEX"), 4)
    for (const brand of ["VISA", "MASTERCARD", "DISCOVER", "VERVE", "JCB", "DINERS", "UNIONPAY", "MAESTRO"] as const) {
      assert.strictEqual(requiredCvvLength(brand), 3)
    }
    const now = at("2026-01-01T00:00:00Z")
    assert.deepStrictEqual(paths(facts({ brand: Option.some("AMEX"), cvvLength: 3 }), now), ["cvv"])
    assert.deepStrictEqual(paths(facts({ brand: Option.some("AMEX"), cvvLength: 4 }), now), [])
    assert.deepStrictEqual(paths(facts({ brand: Option.some("VISA"), cvvLength: 4 }), now), ["cvv"])
  })

  it("an unknown network is an issue on cardNumber; every broken rule is reported together", () => {
    const now = at("2026-01-01T00:00:00Z")
    assert.deepStrictEqual(paths(facts({ brand: Option.none(), expiryYear: 2025 }), now), ["cardNumber", "expiryYear"])
    assert.deepStrictEqual(paths(facts({ brand: Option.some("AMEX"), expiryYear: 2025, cvvLength: 3 }), now), [
      "expiryYear",
      "cvv"
    ])
  })

  it("checkCardRules gives the brand when nothing is broken, else all the issues", () => {
    const now = at("2026-01-01T00:00:00Z")
    assert.deepStrictEqual(checkCardRules(facts({ brand: Option.some("VERVE") }), now), Result.succeed("VERVE"))
    const refused = checkCardRules(facts({ brand: Option.none() }), now)
    assert.isTrue(Result.isFailure(refused))
    if (Result.isFailure(refused))
      assert.deepStrictEqual(
        refused.failure.map(({ path }) => path),
        ["cardNumber"]
      )
  })
})
