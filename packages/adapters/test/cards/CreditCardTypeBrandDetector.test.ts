import { assert, describe, it } from "@effect/vitest"
import { CardBrandDetector, luhnCheckDigit } from "@payments-gaming/domain/cards"
import creditCardType from "credit-card-type"
import { Effect, Option, Redacted } from "effect"
import { detectBrand, layer, makeCachedDetector } from "../../src/cards/CreditCardTypeBrandDetector.ts"

const withCheckDigit = (payload: string) => payload + luhnCheckDigit(payload)

describe("CreditCardTypeBrandDetector", () => {
  it("names the networks' published test numbers", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["4242424242424242", "VISA"],
      ["4111111111111111", "VISA"],
      ["5555555555554444", "MASTERCARD"],
      ["2223003122003222", "MASTERCARD"],
      ["378282246310005", "AMEX"],
      ["371449635398431", "AMEX"],
      ["6011111111111117", "DISCOVER"],
      ["3566002020360505", "JCB"],
      ["36227206271667", "DINERS"],
      ["6200000000000005", "UNIONPAY"],
      ["6759649826438453", "MAESTRO"],
      ["5061460410120223210", "VERVE"]
    ]
    for (const [number, brand] of cases) {
      assert.deepStrictEqual(detectBrand(number), Option.some(brand), number)
    }
  })

  it("calls every Nigerian Verve range VERVE, where the library alone says Maestro or Discover", () => {
    for (const prefix of ["5060", "5061", "5078", "5079", "6500"]) {
      for (const length of [16, 18, 19]) {
        const number = withCheckDigit(prefix + "9".repeat(length - 1 - prefix.length))
        assert.deepStrictEqual(detectBrand(number), Option.some("VERVE"), number)
      }
    }
    // The library on its own names these Maestro and Discover: the override is what makes them Verve.
    const maestro = withCheckDigit("507999999999999")
    const discover = withCheckDigit("650099999999999")
    assert.deepStrictEqual(
      creditCardType(maestro).map(({ type }) => type),
      ["maestro"]
    )
    assert.deepStrictEqual(
      creditCardType(discover).map(({ type }) => type),
      ["discover"]
    )
    assert.deepStrictEqual(detectBrand(maestro), Option.some("VERVE"))
    assert.deepStrictEqual(detectBrand(discover), Option.some("VERVE"))
  })

  it("refuses numbers of unsupported networks and lengths a network does not issue", () => {
    const refused = [
      withCheckDigit("999999999999999"), // no network
      withCheckDigit("220000000000000"), // Mir
      withCheckDigit("636368000000000"), // Elo
      withCheckDigit("42424242424"), // Visa with 12 digits
      withCheckDigit("55555555555544440"), // Mastercard with 18 digits
      withCheckDigit("3782822463100050") // Amex with 17 digits
    ]
    for (const number of refused) {
      assert.deepStrictEqual(detectBrand(number), Option.none(), number)
    }
  })

  it.effect("is the CardBrandDetector of the layer, reading the redacted number", () =>
    Effect.gen(function* () {
      const detector = yield* CardBrandDetector
      assert.deepStrictEqual(yield* detector.detect(Redacted.make("378282246310005")), Option.some("AMEX"))
      assert.deepStrictEqual(yield* detector.detect(Redacted.make("5079000000000000")), Option.some("VERVE"))
    }).pipe(Effect.provide(layer))
  )

  it("answers from its memo exactly as the library does, for every length and many ranges", () => {
    const cached = makeCachedDetector(50)
    // Twice over, so the second pass is answered from the memo (and, past 50 keys, after it emptied).
    for (const pass of [1, 2]) {
      for (let range = 0; range < 400; range++) {
        const prefix = String(2_000_000 + range * 17_713).slice(0, 7)
        for (const length of [13, 14, 15, 16, 17, 18, 19]) {
          const number = withCheckDigit(prefix + "0".repeat(length - 1 - prefix.length))
          assert.deepStrictEqual(cached(number), detectBrand(number), `${number} (pass ${pass})`)
        }
      }
    }
  })

  it("keys its memo on the stored 8-digit prefix and the length: another number of the same range and length gets the same answer", () => {
    const asked: Array<string> = []
    const cached = makeCachedDetector(10, (digits) => {
      asked.push(digits)
      return detectBrand(digits)
    })
    assert.deepStrictEqual(cached("4242424242424242"), Option.some("VISA"))
    assert.deepStrictEqual(cached("4242424299999999"), Option.some("VISA"))
    assert.deepStrictEqual(cached("42424242999999999"), Option.none())
    assert.deepStrictEqual(asked, ["4242424242424242", "42424242999999999"])
    // A number shorter than 16 digits keeps only 4 digits in its row, so none of it is memoised.
    cached("378282246310005")
    cached("378282246310005")
    assert.deepStrictEqual(asked.slice(2), ["378282246310005", "378282246310005"])
    // Past the bound the memo starts again rather than growing.
    for (let range = 0; range < 10; range++) cached(withCheckDigit(`5${range}${"0".repeat(13)}`))
    asked.length = 0
    cached("4242424242424242")
    assert.deepStrictEqual(asked, ["4242424242424242"])
  })
})
