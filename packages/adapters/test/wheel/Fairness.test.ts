import { createHash, createHmac, randomBytes } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { defaultWheel, ProvablyFair, segmentIndexAt } from "@payments-gaming/domain/wheel"
import { Effect } from "effect"
import * as NodeSeedCrypto from "../../src/wheel/NodeSeedCrypto.ts"

const DRAWS = 100_000
const SEEDS = 100
/** χ² critical values at p = 0.001: 7 degrees of freedom (8 segments), 99 (100 draw values). */
const CRITICAL_7 = 24.322
const CRITICAL_99 = 148.23

const segments = defaultWheel("NGN").segments
const total = segments.reduce((sum, segment) => sum + segment.weight, 0)

const chiSquare = (observed: ReadonlyArray<number>, expected: ReadonlyArray<number>) =>
  observed.reduce((sum, count, index) => sum + (count - expected[index]!) ** 2 / expected[index]!, 0)

const expectedPerSegment = segments.map((segment) => (DRAWS * segment.weight) / total)

// The sample is drawn from a fixed master seed so CI is reproducible: at p = 0.001 a fresh random
// sample would fail a correct implementation about once in a thousand runs. FAIRNESS_SEED=random
// (or a hex seed) draws another sample; the seed is printed on failure so it can be replayed.
const FIXED_MASTER = "5f1d2c7e9a0b4c6d8e1f3a5b7c9d0e2f4a6b8c0d1e3f5a7b9c1d3e5f7a9b0c2d"
const configured = process.env.FAIRNESS_SEED
const master = configured === "random" ? randomBytes(32) : Buffer.from(configured ?? FIXED_MASTER, "hex")
const seedOf = (index: number) => createHash("sha256").update(master).update(String(index)).digest()

describe("the draw is fair", () => {
  it.effect(`${DRAWS} HMAC draws over random seeds match the default wheel's weights (χ², p = 0.001)`, () =>
    Effect.gen(function* () {
      const bySegment = new Array<number>(segments.length).fill(0)
      const byValue = new Array<number>(total).fill(0)
      for (let s = 0; s < SEEDS; s++) {
        const seed = new Uint8Array(seedOf(s))
        for (let u = 0; u < DRAWS / SEEDS; u++) {
          const input = { clientSeed: `seed-${u % 7}`, userId: `user-${u}`, nonce: u % 3 }
          const value = yield* ProvablyFair.drawValue(NodeSeedCrypto.make, seed, input, total)
          byValue[value]!++
          bySegment[segmentIndexAt(segments, value)]!++
        }
      }
      const context = `master seed ${master.toString("hex")}, counts ${bySegment.join(",")}`
      const perSegment = chiSquare(bySegment, expectedPerSegment)
      assert.isBelow(perSegment, CRITICAL_7, `segments: χ² = ${perSegment.toFixed(3)}; ${context}`)
      const perValue = chiSquare(byValue, new Array<number>(total).fill(DRAWS / total))
      assert.isBelow(perValue, CRITICAL_99, `draw values: χ² = ${perValue.toFixed(3)}; ${context}`)
    })
  )

  it("the same χ² test rejects a biased mapping (one HMAC byte mod 100)", () => {
    const bySegment = new Array<number>(segments.length).fill(0)
    for (let s = 0; s < SEEDS; s++) {
      const seed = seedOf(s)
      for (let u = 0; u < DRAWS / SEEDS; u++) {
        const mac = createHmac("sha256", seed)
          .update(JSON.stringify([`seed-${u % 7}`, `user-${u}`, u % 3]))
          .digest()
        bySegment[segmentIndexAt(segments, mac[0]! % total)]!++
      }
    }
    assert.isAbove(chiSquare(bySegment, expectedPerSegment), CRITICAL_7)
  })
})
