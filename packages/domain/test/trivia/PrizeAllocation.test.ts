import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, Result } from "effect"
import fc from "fast-check"
import type { InvalidAllocation } from "../../src/trivia/Errors.ts"
import { type AllocationBasis, allocate } from "../../src/trivia/PrizeAllocation.ts"

const dec = BigDecimal.fromStringUnsafe

const shares = (...args: Parameters<typeof allocate>): Array<string> => {
  const result = allocate(...args)
  if (Result.isFailure(result)) assert.fail(`unexpected failure: ${result.failure.message}`)
  return result.success.map(BigDecimal.format)
}

const problem = (...args: Parameters<typeof allocate>): InvalidAllocation["problem"] => {
  const result = allocate(...args)
  if (Result.isSuccess(result)) return assert.fail("expected a failure")
  return result.failure.problem
}

/** The minor units of each share; also checks every share is exactly at the currency's scale. */
const unitsOf = (pool: bigint, scale: number, formula: "EQUAL" | "PROPORTIONAL", basis: AllocationBasis) => {
  const result = allocate(BigDecimal.make(pool, scale), scale, formula, basis)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return result.success.map((share) => {
    const scaled = BigDecimal.scale(share, scale)
    if (!BigDecimal.equals(scaled, share)) throw new Error(`share ${BigDecimal.format(share)} is finer than the scale`)
    return scaled.value
  })
}

const sum = (values: ReadonlyArray<bigint>) => values.reduce((total, value) => total + value, 0n)

describe("PrizeAllocation.allocate", () => {
  describe("EQUAL", () => {
    it("gives the left-over minor units to the first winners", () => {
      assert.deepStrictEqual(shares(dec("100"), 2, "EQUAL", { winners: 3 }), ["33.34", "33.33", "33.33"])
      assert.deepStrictEqual(shares(dec("0.05"), 2, "EQUAL", { winners: 3 }), ["0.02", "0.02", "0.01"])
      assert.deepStrictEqual(shares(dec("0.02"), 2, "EQUAL", { winners: 4 }), ["0.01", "0.01", "0", "0"])
    })

    it("splits a divisible pool evenly and a zero pool into zeros", () => {
      assert.deepStrictEqual(shares(dec("90"), 2, "EQUAL", { winners: 3 }), ["30", "30", "30"])
      assert.deepStrictEqual(shares(dec("0"), 2, "EQUAL", { winners: 2 }), ["0", "0"])
    })

    it("counts the scores but ignores their values", () => {
      assert.deepStrictEqual(shares(dec("10"), 2, "EQUAL", { scores: [9, 0, 1] }), ["3.34", "3.33", "3.33"])
    })

    it("respects the currency scale", () => {
      assert.deepStrictEqual(shares(dec("100"), 0, "EQUAL", { winners: 3 }), ["34", "33", "33"])
      assert.deepStrictEqual(shares(dec("1"), 3, "EQUAL", { winners: 3 }), ["0.334", "0.333", "0.333"])
    })
  })

  describe("PROPORTIONAL", () => {
    it("splits by score, the largest remainders getting the left-over units", () => {
      assert.deepStrictEqual(shares(dec("10"), 2, "PROPORTIONAL", { scores: [2, 1] }), ["6.67", "3.33"])
      // exact shares 50, 30, 20 need no rounding
      assert.deepStrictEqual(shares(dec("100"), 2, "PROPORTIONAL", { scores: [5, 3, 2] }), ["50", "30", "20"])
      // exact: 0.5714…, 0.2857…, 0.1428…: 0.57 + 0.28 + 0.14 = 0.99, and the largest remainder
      // (0.14|28…, 0.28|57…, 0.57|14… → .57 of a unit for the second) takes the last cent
      assert.deepStrictEqual(shares(dec("1"), 2, "PROPORTIONAL", { scores: [4, 2, 1] }), ["0.57", "0.29", "0.14"])
    })

    it("breaks equal remainders by position", () => {
      assert.deepStrictEqual(shares(dec("0.01"), 2, "PROPORTIONAL", { scores: [1, 1] }), ["0.01", "0"])
      // exact shares 0.5, 1 and 0.5 units: the middle one is whole, the outer two tie for the last unit
      assert.deepStrictEqual(shares(dec("0.02"), 2, "PROPORTIONAL", { scores: [1, 2, 1] }), ["0.01", "0.01", "0"])
    })

    it("reads decimal and number scores exactly", () => {
      assert.deepStrictEqual(shares(dec("3"), 2, "PROPORTIONAL", { scores: [0.1, 0.2] }), ["1", "2"])
      assert.deepStrictEqual(shares(dec("3"), 2, "PROPORTIONAL", { scores: [dec("0.1"), dec("0.20")] }), ["1", "2"])
      assert.deepStrictEqual(shares(dec("3"), 2, "PROPORTIONAL", { scores: [1e21, 2e21] }), ["1", "2"])
    })

    it("gives a zero score nothing", () => {
      assert.deepStrictEqual(shares(dec("10"), 2, "PROPORTIONAL", { scores: [3, 0, 1] }), ["7.5", "0", "2.5"])
    })

    it("falls back to EQUAL when every score is zero", () => {
      assert.deepStrictEqual(shares(dec("10"), 2, "PROPORTIONAL", { scores: [0, 0, 0] }), ["3.34", "3.33", "3.33"])
    })

    it("treats a bare winner count as equal scores", () => {
      assert.deepStrictEqual(shares(dec("10"), 2, "PROPORTIONAL", { winners: 3 }), ["3.34", "3.33", "3.33"])
    })
  })

  describe("refuses input it cannot honour exactly", () => {
    it("a pool with more decimals than the currency", () => {
      assert.strictEqual(problem(dec("10.005"), 2, "EQUAL", { winners: 2 }), "PoolNotRepresentable")
      assert.strictEqual(problem(dec("0.5"), 0, "EQUAL", { winners: 2 }), "PoolNotRepresentable")
      // trailing zeros do not count
      assert.deepStrictEqual(shares(dec("10.500"), 2, "EQUAL", { winners: 2 }), ["5.25", "5.25"])
    })

    it("a negative pool or a bad scale", () => {
      assert.strictEqual(problem(dec("-1"), 2, "EQUAL", { winners: 2 }), "InvalidPool")
      assert.strictEqual(problem(dec("1"), -1, "EQUAL", { winners: 2 }), "InvalidScale")
      assert.strictEqual(problem(dec("1"), 1.5, "EQUAL", { winners: 2 }), "InvalidScale")
      assert.strictEqual(problem(dec("1"), 19, "EQUAL", { winners: 2 }), "InvalidScale")
    })

    it("no winners, a bad count or too many", () => {
      assert.strictEqual(problem(dec("1"), 2, "EQUAL", { winners: 0 }), "NoWinners")
      assert.strictEqual(problem(dec("1"), 2, "PROPORTIONAL", { scores: [] }), "NoWinners")
      assert.strictEqual(problem(dec("1"), 2, "EQUAL", { winners: 2.5 }), "InvalidWinnerCount")
      assert.strictEqual(problem(dec("1"), 2, "EQUAL", { winners: -3 }), "InvalidWinnerCount")
      assert.strictEqual(problem(dec("1"), 2, "EQUAL", { winners: 1_000_001 }), "TooManyWinners")
    })

    it("a negative or non-finite score, whatever the formula", () => {
      for (const formula of ["EQUAL", "PROPORTIONAL"] as const) {
        assert.strictEqual(problem(dec("1"), 2, formula, { scores: [1, -1] }), "InvalidScore")
        assert.strictEqual(problem(dec("1"), 2, formula, { scores: [dec("-0.01")] }), "InvalidScore")
        assert.strictEqual(problem(dec("1"), 2, formula, { scores: [Number.NaN] }), "InvalidScore")
        assert.strictEqual(problem(dec("1"), 2, formula, { scores: [Number.POSITIVE_INFINITY] }), "InvalidScore")
      }
    })
  })

  describe("properties", () => {
    const pool = fc.bigInt({ min: 0n, max: 10n ** 15n })
    const scale = fc.integer({ min: 0, max: 4 })
    const winners = fc.integer({ min: 1, max: 1000 })
    // Scores as integers or decimals (BigDecimals of up to 6 places, and plain numbers).
    const score = fc.oneof(
      fc
        .bigInt({ min: 0n, max: 10n ** 12n })
        .chain((value) => fc.integer({ min: 0, max: 6 }).map((places) => BigDecimal.make(value, places))),
      fc.integer({ min: 0, max: 1_000_000 }),
      fc.double({ min: 0, max: 1e6, noNaN: true, noDefaultInfinity: true })
    )
    const scores = fc.array(score, { minLength: 1, maxLength: 300 })

    it("EQUAL: non-negative, sums to the pool, shares within one unit, larger shares first", () => {
      fc.assert(
        fc.property(pool, scale, winners, (units, places, count) => {
          const split = unitsOf(units, places, "EQUAL", { winners: count })
          assert.strictEqual(split.length, count)
          assert.strictEqual(sum(split), units)
          assert.isTrue(split.every((share) => share >= 0n))
          const max = split.reduce((a, b) => (a > b ? a : b))
          const min = split.reduce((a, b) => (a < b ? a : b))
          assert.isTrue(max - min <= 1n)
          assert.isTrue(split.every((share, index) => index === 0 || split[index - 1]! >= share))
        }),
        { numRuns: 300 }
      )
    })

    it("PROPORTIONAL: non-negative, sums to the pool, each share within one unit of its exact share", () => {
      fc.assert(
        fc.property(pool, scale, scores, (units, places, list) => {
          const split = unitsOf(units, places, "PROPORTIONAL", { scores: list })
          assert.strictEqual(split.length, list.length)
          assert.strictEqual(sum(split), units)
          assert.isTrue(split.every((share) => share >= 0n))
          // Exact rational comparison: |share − units·w/W| < 1  ⇔  |share·W − units·w| < W.
          const exact = list.map((s) =>
            BigDecimal.normalize(typeof s === "number" ? BigDecimal.fromStringUnsafe(String(s)) : s)
          )
          const common = exact.reduce((max, d) => Math.max(max, d.scale), 0)
          const weights = exact.map((d) => d.value * 10n ** BigInt(common - d.scale))
          const total = sum(weights)
          if (total === 0n) {
            const equal = unitsOf(units, places, "EQUAL", { winners: list.length })
            assert.deepStrictEqual(split, equal)
            return
          }
          split.forEach((share, index) => {
            const gap = share * total - units * weights[index]!
            assert.isTrue((gap < 0n ? -gap : gap) < total, `share ${index} is a unit or more off`)
          })
        }),
        { numRuns: 300 }
      )
    })

    it("PROPORTIONAL with equal scores is EQUAL", () => {
      fc.assert(
        fc.property(pool, winners, fc.integer({ min: 1, max: 1000 }), (units, count, value) => {
          const proportional = unitsOf(units, 2, "PROPORTIONAL", { scores: Array.from({ length: count }, () => value) })
          assert.deepStrictEqual(proportional, unitsOf(units, 2, "EQUAL", { winners: count }))
        }),
        { numRuns: 100 }
      )
    })
  })
})
