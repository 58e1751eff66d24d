import { assert, describe, it } from "@effect/vitest"
import {
  COIN,
  currencyScale,
  DecimalAmount,
  ExactDecimalAmount,
  isCurrency,
  JsonNumber,
  MAX_NUMBER_EXPONENT,
  MAX_NUMBER_LENGTH,
  Money,
  parseDecimal
} from "@payments-gaming/domain/money"
import { BigDecimal, Option, Result, Schema } from "effect"
import fc from "fast-check"

const dec = BigDecimal.fromStringUnsafe

describe("Currency", () => {
  it("knows the minor-unit scale of each required currency", () => {
    const expected = { NGN: 2, USD: 2, EUR: 2, GBP: 2, GHS: 2, KES: 2, ZAR: 2, JPY: 0, KWD: 3 } as const
    for (const [code, scale] of Object.entries(expected)) {
      assert.isTrue(isCurrency(code), code)
      if (isCurrency(code)) assert.strictEqual(currencyScale(code), scale, code)
    }
    assert.isFalse(isCurrency("XYZ"))
    assert.isFalse(isCurrency("ngn"))
    assert.isFalse(isCurrency("COIN"))
  })
})

describe("Money", () => {
  it("converts to integer minor units exactly", () => {
    assert.strictEqual(Result.getOrThrow(Money.toMinorUnits(Money.make("NGN", dec("2500")))), 250000n)
    assert.strictEqual(Result.getOrThrow(Money.toMinorUnits(Money.make("NGN", dec("1500.5")))), 150050n)
    assert.strictEqual(Result.getOrThrow(Money.toMinorUnits(Money.make("NGN", dec("1500.500")))), 150050n)
    assert.strictEqual(Result.getOrThrow(Money.toMinorUnits(Money.make("JPY", dec("2500")))), 2500n)
    assert.strictEqual(Result.getOrThrow(Money.toMinorUnits(Money.make("KWD", dec("1.25")))), 1250n)
    assert.strictEqual(Result.getOrThrow(Money.toMinorUnits(Money.make(COIN, dec("50")))), 50n)
    assert.strictEqual(Result.getOrThrow(Money.toMinorUnits(Money.make("NGN", dec("-0.01")))), -1n)
    assert.strictEqual(Result.getOrThrow(Money.toMinorUnits(Money.make("USD", BigDecimal.make(3n, -2)))), 30000n)
  })

  it("refuses amounts with more decimals than the unit allows", () => {
    for (const [unit, amount] of [
      ["NGN", "1.005"],
      ["JPY", "1.5"],
      ["KWD", "0.0001"],
      [COIN, "0.5"]
    ] as const) {
      const result = Money.toMinorUnits(Money.make(unit, dec(amount)))
      assert.isTrue(Result.isFailure(result), `${amount} ${unit}`)
      if (Result.isFailure(result)) assert.strictEqual(result.failure._tag, "PrecisionExceeded")
    }
  })

  it("formats at the unit's scale", () => {
    assert.strictEqual(Money.format(Money.make("NGN", dec("2500"))), "2500.00")
    assert.strictEqual(Money.format(Money.make("NGN", dec("0.5"))), "0.50")
    assert.strictEqual(Money.format(Money.make("NGN", dec("-12.3"))), "-12.30")
    assert.strictEqual(Money.format(Money.make("JPY", dec("2500"))), "2500")
    assert.strictEqual(Money.format(Money.make("KWD", dec("1.2"))), "1.200")
    assert.strictEqual(Money.format(Money.make("KWD", dec("0.001"))), "0.001")
    assert.strictEqual(Money.format(Money.coins(10n)), "10")
    assert.strictEqual(Money.format(Money.make("NGN", dec("1.005"))), "1.005")
  })

  it("refuses amounts beyond the largest the ledger stores, however they are written", () => {
    const amounts = [dec("10000000000000.01"), BigDecimal.make(1n, -308), dec("-99999999999999999.99")]
    for (const amount of amounts) {
      const text = BigDecimal.format(amount)
      const minor = Money.toMinorUnits(Money.make("NGN", amount))
      assert.isTrue(Result.isFailure(minor), text)
      if (Result.isFailure(minor)) assert.strictEqual(minor.failure._tag, "AmountOutOfRange")
    }
    const largest = Money.fromMinorUnits("NGN", Money.MAX_MINOR_UNITS)
    assert.strictEqual(Result.getOrThrow(Money.toMinorUnits(largest)), Money.MAX_MINOR_UNITS)
  })

  it("round-trips any minor-unit amount through BigDecimal", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -Money.MAX_MINOR_UNITS, max: Money.MAX_MINOR_UNITS }),
        fc.constantFrom("NGN", "JPY", "KWD", COIN),
        (minor, unit) => {
          const money = Money.fromMinorUnits(unit, minor)
          assert.strictEqual(Result.getOrThrow(Money.toMinorUnits(money)), minor)
          const reparsed = Option.getOrThrow(parseDecimal(Money.format(money)))
          assert.isTrue(BigDecimal.equals(reparsed, money.amount))
        }
      )
    )
  })
})

describe("DecimalAmount", () => {
  const decode = Schema.decodeUnknownSync(DecimalAmount)

  it("reads a JSON number and a numeric string to the same exact decimal", () => {
    assert.isTrue(BigDecimal.equals(decode(1500.5), dec("1500.5")))
    assert.isTrue(BigDecimal.equals(decode("1500.50"), dec("1500.5")))
    assert.isTrue(BigDecimal.equals(decode(0.1), dec("0.1")))
    assert.isTrue(BigDecimal.equals(decode("12345678901234567890.12"), dec("12345678901234567890.12")))
    assert.isTrue(BigDecimal.equals(decode("-3"), dec("-3")))
  })

  it("refuses what is not a decimal number", () => {
    const tooLong = "1".repeat(MAX_NUMBER_LENGTH + 1)
    for (const bad of [
      "",
      "abc",
      "1e5",
      "1,000.00",
      " 5",
      "+5",
      "5.",
      ".5",
      true,
      null,
      [],
      {},
      tooLong,
      "9".repeat(100_000)
    ]) {
      assert.throws(() => decode(bad), undefined, undefined, JSON.stringify(bad))
    }
  })

  it("never goes through a float for strings", () => {
    // Plain decimal text, however many digits: BigDecimal.format would switch to exponents.
    const plain = (digits: bigint, scale: number) => {
      const text = digits.toString().padStart(scale + 1, "0")
      return scale === 0 ? text : `${text.slice(0, -scale)}.${text.slice(-scale)}`
    }
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 6 }), (digits, scale) => {
        assert.isTrue(BigDecimal.equals(decode(plain(digits, scale)), BigDecimal.make(digits, scale)))
      })
    )
    assert.isTrue(BigDecimal.equals(decode("61035156250000000000000000"), BigDecimal.make(6103515625n, -16)))
  })
})

describe("ExactDecimalAmount", () => {
  const decode = Schema.decodeUnknownSync(ExactDecimalAmount)

  it("reads a JSON number from its source text, beyond what a float holds", () => {
    assert.strictEqual(BigDecimal.format(decode(new JsonNumber("12345678901234567890.12"))), "12345678901234567890.12")
    assert.strictEqual(BigDecimal.format(decode(new JsonNumber("1500.50"))), "1500.5")
    assert.strictEqual(BigDecimal.format(decode(new JsonNumber("1e3"))), "1000")
    assert.strictEqual(BigDecimal.format(decode("1500.50")), "1500.5")
    assert.strictEqual(BigDecimal.format(decode(1500.5)), "1500.5")
  })

  it("refuses a literal past the length or exponent bound before reading it, and takes one at the bound", () => {
    const atLength = `1${"0".repeat(MAX_NUMBER_LENGTH - 4)}.00`
    assert.strictEqual(atLength.length, MAX_NUMBER_LENGTH)
    assert.isTrue(BigDecimal.equals(decode(new JsonNumber(atLength)), BigDecimal.make(10n ** 60n, 0)))
    assert.isTrue(BigDecimal.equals(decode(atLength), BigDecimal.make(10n ** 60n, 0)))
    assert.isTrue(BigDecimal.equals(decode(new JsonNumber(`1e${MAX_NUMBER_EXPONENT}`)), BigDecimal.make(1n, -64)))
    assert.isTrue(BigDecimal.equals(decode(new JsonNumber(`25E-${MAX_NUMBER_EXPONENT}`)), BigDecimal.make(25n, 64)))
    for (const source of [
      `${atLength}0`,
      "1".repeat(100_000),
      `0.${"1".repeat(100_000)}`,
      `1e${MAX_NUMBER_EXPONENT + 1}`,
      "1e999999999",
      "1E-999999999",
      "1e+9007199254740993"
    ]) {
      const result = Schema.decodeUnknownResult(ExactDecimalAmount)(new JsonNumber(source))
      assert.isTrue(Result.isFailure(result), source.slice(0, 30))
      assert.match(String(Result.isFailure(result) ? result.failure : ""), /at most/, source.slice(0, 30))
    }
    assert.isTrue(Option.isNone(parseDecimal("1".repeat(MAX_NUMBER_LENGTH + 1))))
    assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(ExactDecimalAmount)("1".repeat(100_000))))
  })

  it("reports one issue per bad value", () => {
    for (const bad of ["abc", true, null, {}]) {
      const result = Schema.decodeUnknownResult(ExactDecimalAmount)(bad, { errors: "all" })
      assert.isTrue(Result.isFailure(result))
    }
  })
})
