import { assert, describe, it } from "@effect/vitest"
import { MAX_JSON_DEPTH, parseJsonExact } from "@payments-gaming/domain/banking"
import { JsonNumber, MAX_NUMBER_EXPONENT, MAX_NUMBER_LENGTH } from "@payments-gaming/domain/money"
import { BigDecimal, Option, Result } from "effect"
import fc from "fast-check"

const encode = (text: string) => new TextEncoder().encode(text)

/** Every JsonNumber of a parsed value, depth first in key order. */
const numbersOf = (value: unknown): Array<string> => {
  if (value instanceof JsonNumber) return [value.source]
  if (typeof value !== "object" || value === null) return []
  return Object.values(value).flatMap(numbersOf)
}

const parsed = (text: string) => Result.getOrThrow(parseJsonExact(encode(text)))

const sameValue = (read: string, written: string) => {
  const a = BigDecimal.fromString(read)
  const b = BigDecimal.fromString(written)
  return Option.isSome(a) && Option.isSome(b) && BigDecimal.equals(a.value, b.value)
}

describe("parseJsonExact", () => {
  it("reads each number at the value written, on the plain path and on the reviver's", () => {
    // ≤ 15 digits, no exponent: the plain parse; the rest: the reviver, which keeps the text.
    const written = [
      "4950.50",
      "0",
      "-0",
      "-12.5",
      "0.000001",
      "0.0000001",
      "123456789012345",
      "99999999999999.9",
      "1234567890123456",
      "0.30000000000000004",
      "12345678901234567890.12",
      "1e2",
      "2.5E-3"
    ]
    const numbers = numbersOf(parsed(`{"a":[${written.join(",")}],"b":{"c":${written[0]}}}`))
    assert.strictEqual(numbers.length, written.length + 1)
    for (const [index, text] of [...written, written[0]!].entries()) {
      assert.isTrue(sameValue(numbers[index]!, text), `${text} read as ${numbers[index]}`)
    }
    // Past 15 digits the text itself is kept, digit for digit.
    assert.deepStrictEqual(numbersOf(parsed(`[1234567890123456, 12345678901234567890.12]`)), [
      "1234567890123456",
      "12345678901234567890.12"
    ])
  })

  it("never changes a number's value, whatever its shape (property)", () => {
    const digits = (min: number, max: number) =>
      fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: min, maxLength: max })
    const number = fc
      .tuple(fc.boolean(), digits(1, 20), fc.option(digits(1, 12)), fc.option(fc.integer({ min: -30, max: 30 })))
      .map(([negative, whole, fraction, exponent]) => {
        const integer = whole.replace(/^0+(?=\d)/, "")
        return `${negative ? "-" : ""}${integer}${fraction === null ? "" : `.${fraction}`}${exponent === null ? "" : `e${exponent}`}`
      })
    fc.assert(
      fc.property(fc.array(number, { minLength: 1, maxLength: 8 }), fc.string(), (numbers, text) => {
        const body = JSON.stringify({ text, list: "LIST" }).replace('"LIST"', `[${numbers.join(",")}]`)
        const read = numbersOf(parsed(body))
        return read.length === numbers.length && read.every((value, index) => sameValue(value, numbers[index]!))
      }),
      { numRuns: 500 }
    )
  })

  it("refuses NUL in a string value however it is reached, and nothing else", () => {
    assert.deepStrictEqual(
      parseJsonExact(encode('{"a":"x\\u0000y"}')),
      Result.fail("strings must not contain NUL characters")
    )
    assert.deepStrictEqual(
      parseJsonExact(encode('{"a":["\\u0000"],"n":1}')),
      Result.fail("strings must not contain NUL characters")
    )
    // An escaped backslash followed by "u0000" is six ordinary characters.
    assert.deepStrictEqual(Result.getOrThrow(parseJsonExact(encode('{"a":"\\\\u0000"}'))), { a: "\\u0000" })
  })

  it("answers invalid UTF-8, invalid JSON and deep nesting with a failure, never a throw", () => {
    assert.deepStrictEqual(
      parseJsonExact(new Uint8Array([0x7b, 0xff, 0x7d])),
      Result.fail("the body is not valid UTF-8")
    )
    assert.deepStrictEqual(parseJsonExact(encode('{"a":1,}')), Result.fail("invalid JSON"))
    assert.deepStrictEqual(parseJsonExact(encode("[1e5")), Result.fail("invalid JSON"))
    // 100,000 levels fit in a 256 KiB body: refused by depth, whichever path its numbers choose.
    const nested = (levels: number, number: string) => `${"[".repeat(levels)}${number}${"]".repeat(levels)}`
    for (const number of ["1", "12345678901234567890.12"]) {
      assert.deepStrictEqual(
        parseJsonExact(encode(nested(100_000, number))),
        Result.fail(`the body nests deeper than ${MAX_JSON_DEPTH} levels`)
      )
      assert.deepStrictEqual(
        parseJsonExact(encode(nested(MAX_JSON_DEPTH + 1, number))),
        Result.fail(`the body nests deeper than ${MAX_JSON_DEPTH} levels`)
      )
      let inner: unknown = Result.getOrThrow(parseJsonExact(encode(nested(MAX_JSON_DEPTH, number))))
      while (Array.isArray(inner)) inner = inner[0]
      assert.instanceOf(inner, JsonNumber)
      // Brackets inside strings are text, not nesting.
      assert.isTrue(Result.isSuccess(parseJsonExact(encode(`{"a":"${"[".repeat(1_000)}","n":${number}}`))))
    }
  })

  it("refuses a number past the length or exponent bound, wherever it is, and reads one at the bound", () => {
    const atLength = `-${"9".repeat(MAX_NUMBER_LENGTH - 4)}.00`
    assert.strictEqual(atLength.length, MAX_NUMBER_LENGTH)
    assert.deepStrictEqual(numbersOf(parsed(`{"a":${atLength}}`)), [atLength])
    assert.deepStrictEqual(numbersOf(parsed(`[1e${MAX_NUMBER_EXPONENT}, 1E-${MAX_NUMBER_EXPONENT}]`)), [
      `1e${MAX_NUMBER_EXPONENT}`,
      `1E-${MAX_NUMBER_EXPONENT}`
    ])
    const tooLong = `a number may have at most ${MAX_NUMBER_LENGTH} characters`
    const tooLarge = `a number's exponent may be at most ${MAX_NUMBER_EXPONENT} in magnitude`
    for (const [number, reason] of [
      [`${atLength}0`, tooLong],
      ["1".repeat(100_000), tooLong],
      [`0.${"0".repeat(100_000)}1`, tooLong],
      [`1e${MAX_NUMBER_EXPONENT + 1}`, tooLarge],
      ["1e999999999", tooLarge],
      ["-2.5E-999999999", tooLarge],
      [`1e+${"9".repeat(40)}`, tooLarge]
    ] as const) {
      for (const body of [number, `{"data":{"amount":${number}}}`, `[1, "x", {"n":[${number}]}]`]) {
        assert.deepStrictEqual(parseJsonExact(encode(body)), Result.fail(reason), body.slice(0, 40))
      }
    }
    // Inside a string it is text, not a number.
    assert.deepStrictEqual(parsed(`{"a":"1e999999999"}`), { a: "1e999999999" })
  })

  it("reads a bare number as a JsonNumber on both paths", () => {
    assert.deepStrictEqual(numbersOf(parsed("4950.50")), ["4950.5"])
    assert.deepStrictEqual(numbersOf(parsed("12345678901234567890.12")), ["12345678901234567890.12"])
  })
})
