import { BigDecimal, Result, Schema } from "effect"
import { AmountOutOfRange, PrecisionExceeded } from "./Errors.ts"
import { COIN, Unit, unitScale } from "./Unit.ts"

/** An exact amount of one unit (a currency or coins). Never a float. */
export const Money = Schema.Struct({
  currency: Unit,
  amount: Schema.BigDecimal
})
export type Money = typeof Money.Type

export const make = (currency: Unit, amount: BigDecimal.BigDecimal): Money => ({ currency, amount })

export const zero = (currency: Unit): Money => make(currency, BigDecimal.fromBigInt(0n))

export const coins = (count: bigint): Money => make(COIN, BigDecimal.fromBigInt(count))

const pow10 = (exponent: number): bigint => 10n ** BigInt(exponent)

/**
 * The amount as an integer count of the unit's minor unit (kobo, cents, fils, coins). Fails rather
 * than rounds when the amount has more decimals than the unit allows.
 */
/** The largest amount, in minor units, any single movement may carry (10^15: ten trillion naira). */
export const MAX_MINOR_UNITS = 10n ** 15n

const inRange = (money: Money, minor: bigint): Result.Result<bigint, AmountOutOfRange> => {
  if (minor <= MAX_MINOR_UNITS && minor >= -MAX_MINOR_UNITS) return Result.succeed(minor)
  const amount = BigDecimal.format(money.amount)
  return Result.fail(
    new AmountOutOfRange({
      unit: money.currency,
      amount,
      message: `${amount} ${money.currency} is beyond the largest supported amount`
    })
  )
}

export const toMinorUnits = (money: Money): Result.Result<bigint, PrecisionExceeded | AmountOutOfRange> => {
  const scale = unitScale(money.currency)
  const { value, scale: decimals } = money.amount
  // Checked before scaling up, so an absurd exponent (1e308) is refused without building its digits.
  if (BigDecimal.isGreaterThan(BigDecimal.abs(money.amount), BigDecimal.fromBigInt(MAX_MINOR_UNITS))) {
    return inRange(money, MAX_MINOR_UNITS + 1n)
  }
  if (decimals <= scale) return inRange(money, value * pow10(scale - decimals))
  const divisor = pow10(decimals - scale)
  if (value % divisor !== 0n) {
    const amount = BigDecimal.format(money.amount)
    return Result.fail(
      new PrecisionExceeded({
        unit: money.currency,
        amount,
        scale,
        message: `${amount} ${money.currency} has more than ${scale} decimal place${scale === 1 ? "" : "s"}`
      })
    )
  }
  return inRange(money, value / divisor)
}

export const fromMinorUnits = (currency: Unit, minor: bigint): Money =>
  make(currency, BigDecimal.make(minor, unitScale(currency)))

export const hasValidScale = (money: Money): boolean => Result.isSuccess(toMinorUnits(money))

/** Decimal text with exactly the unit's decimals: "2500.00" NGN, "2500" JPY, "1.250" KWD, "10" coins. */
export const formatMinorUnits = (currency: Unit, minor: bigint): string => {
  const scale = unitScale(currency)
  const negative = minor < 0n
  const digits = (negative ? -minor : minor).toString().padStart(scale + 1, "0")
  const whole = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`
  return negative ? `-${whole}` : whole
}

/**
 * Decimal text at the unit's scale ("2500.00"). An amount too precise for its unit is printed with
 * all its digits rather than rounded, so formatting never hides a value.
 */
export const format = (money: Money): string =>
  Result.match(toMinorUnits(money), {
    onSuccess: (minor) => formatMinorUnits(money.currency, minor),
    onFailure: () => BigDecimal.format(money.amount)
  })

export const equals = (a: Money, b: Money): boolean =>
  a.currency === b.currency && BigDecimal.equals(a.amount, b.amount)

export const isPositive = (money: Money): boolean => BigDecimal.isPositive(money.amount)

export const negate = (money: Money): Money => make(money.currency, BigDecimal.negate(money.amount))
