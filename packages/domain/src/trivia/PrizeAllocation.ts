/**
 * Splitting a prize pool between winners, exactly.
 *
 * All arithmetic is done on `bigint` minor units (kobo, cents…), and the units are handed out
 * with the largest-remainder (Hamilton) method, so the shares always add up to the pool to the
 * last minor unit and no share is ever more than one unit away from its exact fraction.
 *
 * Pure: no effects, no clock, no randomness. The same input always gives the same shares.
 *
 * @module
 */
import { BigDecimal, Result } from "effect"
import { InvalidAllocation } from "./Errors.ts"
import { MAX_WINNERS, type SharingFormula } from "./Model.ts"

/**
 * Who shares the pool.
 *
 * - `{ winners: n }`: `n` winners with equal standing. Under `PROPORTIONAL` this is the same as
 *   `n` equal scores, so it splits like `EQUAL`.
 * - `{ scores }`: one entry per winner, in ranking order (the order the shares come back in).
 *   Scores are non-negative decimals; a `number` is read from its shortest decimal form
 *   (`0.1` is exactly one tenth), never through float arithmetic. `EQUAL` uses only how many
 *   scores there are.
 */
export type AllocationBasis =
  | { readonly winners: number }
  | { readonly scores: ReadonlyArray<BigDecimal.BigDecimal | number> }

/** The most decimal places a currency may have here; ISO 4217 uses at most 4. */
export const MAX_CURRENCY_SCALE = 18

const invalid = (problem: InvalidAllocation["problem"], detail: string) =>
  Result.fail(new InvalidAllocation({ problem, detail }))

/**
 * Splits `pool` into one share per winner.
 *
 * @param pool the prize pool; must be ≥ 0 and have no more decimals than `currencyScale`
 *   (a pool of `10.005` cannot be paid in a 2-decimal currency, so it is refused rather than
 *   rounded).
 * @param currencyScale the currency's minor-unit digits (ISO 4217 exponent: 2 for NGN and USD,
 *   0 for JPY, 3 for KWD); an integer from 0 to {@link MAX_CURRENCY_SCALE}.
 * @param formula
 *   - `EQUAL`: every winner gets `floor(pool / n)` minor units, and the `pool mod n` units left
 *     over go one each to the first winners in order. Shares differ by at most one minor unit,
 *     and an earlier winner never gets less than a later one.
 *   - `PROPORTIONAL`: winner `i` gets `pool × score_i / Σ scores`, rounded down to a minor unit;
 *     the units left over go one each to the winners whose exact shares lost the largest
 *     fractions, ties going to the earlier winner. Each share is therefore the exact share
 *     rounded down or up. When every score is zero there is nothing to be proportional to, and
 *     the pool is split as `EQUAL` (a zero score alongside positive ones gets nothing beyond
 *     what rounding can never give it: exactly zero).
 * @param basis how many winners there are, or their scores; see {@link AllocationBasis}.
 * @returns the shares, one per winner in input order, each a `BigDecimal` at `currencyScale`,
 *   summing exactly to `pool`. A zero pool gives zero shares.
 *
 * Fails with {@link InvalidAllocation} for: a bad `currencyScale` (`InvalidScale`); a pool that is
 * negative (`InvalidPool`) or has too many decimals (`PoolNotRepresentable`); zero winners or an
 * empty score list (`NoWinners`); a winner count that is not a whole number
 * (`InvalidWinnerCount`); more than {@link MAX_WINNERS} winners (`TooManyWinners`); a negative,
 * NaN or infinite score (`InvalidScore`).
 *
 * @example
 * ```ts
 * allocate(BigDecimal.fromStringUnsafe("100"), 2, "EQUAL", { winners: 3 })
 * // Success: [33.34, 33.33, 33.33]
 * allocate(BigDecimal.fromStringUnsafe("10"), 2, "PROPORTIONAL", { scores: [2, 1] })
 * // Success: [6.67, 3.33]
 * ```
 */
export const allocate = (
  pool: BigDecimal.BigDecimal,
  currencyScale: number,
  formula: SharingFormula,
  basis: AllocationBasis
): Result.Result<Array<BigDecimal.BigDecimal>, InvalidAllocation> => {
  if (!Number.isSafeInteger(currencyScale) || currencyScale < 0 || currencyScale > MAX_CURRENCY_SCALE) {
    return invalid("InvalidScale", `currency scale must be an integer from 0 to ${MAX_CURRENCY_SCALE}`)
  }
  const units = toMinorUnits(pool, currencyScale)
  if (Result.isFailure(units)) return Result.fail(units.failure)
  const weights = "winners" in basis ? equalWeights(basis.winners) : scoreWeights(basis.scores)
  if (Result.isFailure(weights)) return Result.fail(weights.failure)
  const shares =
    formula === "EQUAL" || weights.success.every((weight) => weight === 0n)
      ? splitEqually(units.success, weights.success.length)
      : splitProportionally(units.success, weights.success)
  return Result.succeed(shares.map((share) => BigDecimal.make(share, currencyScale)))
}

/**
 * `units` split into `count` shares that differ by at most one; the larger shares come first.
 * `count` must be ≥ 1.
 */
export const splitEqually = (units: bigint, count: number): Array<bigint> => {
  const n = BigInt(count)
  const base = units / n
  const extra = Number(units % n)
  return Array.from({ length: count }, (_, index) => (index < extra ? base + 1n : base))
}

/**
 * `units` split in proportion to `weights` by the largest-remainder method. Every weight must
 * be ≥ 0 and at least one > 0. The shares sum to `units`, and each is its exact proportional
 * share rounded down or up; equal remainders favour the earlier position.
 */
export const splitProportionally = (units: bigint, weights: ReadonlyArray<bigint>): Array<bigint> => {
  const total = weights.reduce((sum, weight) => sum + weight, 0n)
  const shares = weights.map((weight) => (units * weight) / total)
  const remainders = weights.map((weight) => (units * weight) % total)
  // Fewer than `weights.length` units are left, and only positions with a remainder get one.
  const leftOver = Number(units - shares.reduce((sum, share) => sum + share, 0n))
  const byRemainder = remainders
    .map((remainder, index) => ({ remainder, index }))
    .sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1))
  for (let k = 0; k < leftOver; k++) {
    const index = byRemainder[k]!.index
    shares[index] = shares[index]! + 1n
  }
  return shares
}

const toMinorUnits = (pool: BigDecimal.BigDecimal, currencyScale: number): Result.Result<bigint, InvalidAllocation> => {
  if (!BigDecimal.isBigDecimal(pool) || BigDecimal.isNegative(pool)) {
    return invalid("InvalidPool", "the pool must be a BigDecimal of at least 0")
  }
  if (BigDecimal.normalize(pool).scale > currencyScale) {
    return invalid(
      "PoolNotRepresentable",
      `the pool ${BigDecimal.format(pool)} has more than ${currencyScale} decimal places`
    )
  }
  return Result.succeed(BigDecimal.scale(pool, currencyScale).value)
}

const checkCount = (count: number): Result.Result<number, InvalidAllocation> => {
  if (!Number.isSafeInteger(count) || count < 0) {
    return invalid("InvalidWinnerCount", "the number of winners must be a whole number")
  }
  if (count === 0) return invalid("NoWinners", "there must be at least one winner")
  if (count > MAX_WINNERS) return invalid("TooManyWinners", `there may be at most ${MAX_WINNERS} winners`)
  return Result.succeed(count)
}

const equalWeights = (winners: number): Result.Result<Array<bigint>, InvalidAllocation> =>
  Result.map(checkCount(winners), (count) => Array.from({ length: count }, () => 1n))

const scoreWeights = (
  scores: ReadonlyArray<BigDecimal.BigDecimal | number>
): Result.Result<Array<bigint>, InvalidAllocation> => {
  const count = checkCount(scores.length)
  if (Result.isFailure(count)) return Result.fail(count.failure)
  const decimals: Array<BigDecimal.BigDecimal> = []
  for (const [index, score] of scores.entries()) {
    const decimal = typeof score === "number" ? fromNumberExactly(score) : score
    if (decimal === undefined || !BigDecimal.isBigDecimal(decimal) || BigDecimal.isNegative(decimal)) {
      return invalid("InvalidScore", `score ${index} must be a finite number of at least 0`)
    }
    decimals.push(BigDecimal.normalize(decimal))
  }
  // Bring every score to one scale so the ratios between them are ratios of integers.
  const scale = decimals.reduce((max, decimal) => Math.max(max, decimal.scale), 0)
  return Result.succeed(decimals.map((decimal) => decimal.value * 10n ** BigInt(scale - decimal.scale)))
}

const fromNumberExactly = (n: number): BigDecimal.BigDecimal | undefined =>
  Number.isFinite(n) ? BigDecimal.fromStringUnsafe(String(n)) : undefined
