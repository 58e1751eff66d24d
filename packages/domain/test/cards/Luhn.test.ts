import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { isLuhnValid, luhnCheckDigit } from "../../src/cards/Luhn.ts"

const digitString = (minLength: number, maxLength: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength, maxLength }).map((digits) => digits.join(""))

describe("Luhn", () => {
  it("accepts the networks' published test numbers", () => {
    for (const number of [
      "4242424242424242",
      "4111111111111111",
      "5555555555554444",
      "2223003122003222",
      "378282246310005",
      "6011111111111117",
      "5061460410120223210",
      "79927398713"
    ]) {
      assert.isTrue(isLuhnValid(number), number)
    }
  })

  it("refuses numbers whose check digit is wrong, and the empty string", () => {
    for (const number of ["4242424242424241", "4111111111111112", "378282246310006", "79927398710", ""]) {
      assert.isFalse(isLuhnValid(number), number)
    }
  })

  it("computes the check digit of the classic example", () => {
    assert.strictEqual(luhnCheckDigit("7992739871"), "3")
    assert.strictEqual(luhnCheckDigit("424242424242424"), "2")
  })

  it("a payload followed by its check digit is valid, followed by any other digit it is not", () => {
    fc.assert(
      fc.property(digitString(1, 18), fc.integer({ min: 0, max: 9 }), (payload, other) => {
        const check = luhnCheckDigit(payload)
        assert.isTrue(isLuhnValid(payload + check))
        if (String(other) !== check) assert.isFalse(isLuhnValid(payload + String(other)))
      })
    )
  })

  it("detects every single-digit substitution", () => {
    fc.assert(
      fc.property(digitString(11, 18), fc.nat(), fc.integer({ min: 1, max: 9 }), (payload, at, shift) => {
        const valid = payload + luhnCheckDigit(payload)
        const index = at % valid.length
        const changed = String((Number(valid[index]) + shift) % 10)
        assert.isFalse(isLuhnValid(valid.slice(0, index) + changed + valid.slice(index + 1)))
      })
    )
  })
})
