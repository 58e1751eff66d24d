import { assert, describe, it } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import { WheelTesting } from "@payments-gaming/domain/testing"
import {
  ACTIVE_WHEEL_TTL_MILLIS,
  defaultWheel,
  layerWheelCaches,
  RoundSeeds,
  SpinAndWinService,
  WheelDefinition,
  WheelRepository
} from "@payments-gaming/domain/wheel"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"

const NOON_LAGOS = Date.parse("2026-05-01T11:00:00Z")
const user = (id: string) => id as UserId

/** How often the service went to the store for the active wheel and for a round's seed. */
interface Reads {
  active: number
  seeds: Array<string>
}

/**
 * The service behind its caches on in-memory ports, with the wheel and seed stores counting the
 * reads that get past the caches; a fresh `reads` per test. The ports themselves stay reachable,
 * uncached and uncounted, for the test to change.
 */
const counted = (reads: Reads, options: WheelTesting.MemoryOptions = {}) =>
  SpinAndWinService.layer.pipe(
    Layer.provide(layerWheelCaches),
    Layer.provide(
      Layer.mergeAll(
        Layer.effect(
          WheelRepository,
          Effect.map(WheelRepository, (real) =>
            WheelRepository.of({
              ...real,
              active: Effect.tap(
                real.active,
                Effect.sync(() => reads.active++)
              )
            })
          )
        ),
        Layer.effect(
          RoundSeeds,
          Effect.map(RoundSeeds, (real) =>
            RoundSeeds.of({
              ...real,
              getOrCreate: (round, fresh) =>
                Effect.tap(
                  real.getOrCreate(round, fresh),
                  Effect.sync(() => reads.seeds.push(round))
                )
            })
          )
        )
      )
    ),
    Layer.provideMerge(WheelTesting.layerMemoryPorts(options))
  )

/** `body` with the service at noon in Lagos, counting the reads of its stores in `reads`. */
const atNoonCounting = <A, E>(
  body: (service: SpinAndWinService["Service"], reads: Reads) => Effect.Effect<A, E, WheelRepository>
) => {
  const reads: Reads = { active: 0, seeds: [] }
  return Effect.gen(function* () {
    yield* TestClock.setTime(NOON_LAGOS)
    return yield* body(yield* SpinAndWinService, reads)
  }).pipe(Effect.provide(counted(reads)))
}

describe("SpinAndWinService caches", () => {
  it.effect("reads the active wheel once per TTL, and again when the clock moves back", () =>
    atNoonCounting((service, reads) =>
      Effect.gen(function* () {
        for (let index = 0; index < 5; index++) yield* service.view(user("alice"))
        assert.strictEqual(reads.active, 1)
        yield* TestClock.adjust(ACTIVE_WHEEL_TTL_MILLIS - 1)
        yield* service.view(user("alice"))
        yield* service.spin(user("alice"))
        assert.strictEqual(reads.active, 1)
        yield* TestClock.adjust(1)
        yield* service.view(user("alice"))
        assert.strictEqual(reads.active, 2)
        yield* TestClock.setTime(NOON_LAGOS - 1000)
        yield* service.view(user("alice"))
        assert.strictEqual(reads.active, 3)
      })
    )
  )

  it.effect("draws on a wheel changed behind its back once the TTL has passed", () =>
    atNoonCounting((service) =>
      Effect.gen(function* () {
        const before = yield* service.view(user("bob"))
        assert.strictEqual(before.segments[0]?.label, "₦50")
        // Another instance installs an edited wheel (the default's segments in reverse order): this one
        // still shows its copy until the TTL runs out.
        const edited = new WheelDefinition({ currency: "NGN", segments: [...defaultWheel("NGN").segments].reverse() })
        yield* (yield* WheelRepository).replaceActive(1, edited)
        yield* TestClock.adjust(ACTIVE_WHEEL_TTL_MILLIS - 1)
        assert.strictEqual((yield* service.view(user("bob"))).segments[0]?.label, "₦50")
        yield* TestClock.adjust(1)
        assert.strictEqual((yield* service.view(user("bob"))).segments[0]?.label, "₦1,000")
        const spun = yield* service.spin(user("bob"))
        assert.strictEqual(spun.wheelVersion, 2)
      })
    )
  )

  it.effect("reads each round's seed once, and the next round's when the day turns", () =>
    atNoonCounting((service, reads) =>
      Effect.gen(function* () {
        const first = yield* service.view(user("carol"))
        for (let index = 0; index < 3; index++) {
          yield* TestClock.adjust("1 hour")
          assert.strictEqual((yield* service.view(user("carol"))).commitment, first.commitment)
        }
        yield* service.spin(user("carol"))
        assert.deepStrictEqual(reads.seeds, ["2026-05-01"])
        // 11:00Z + 3 h = 14:00Z; Lagos midnight is 23:00Z.
        yield* TestClock.adjust("9 hours")
        const next = yield* service.view(user("carol"))
        assert.strictEqual(next.round, "2026-05-02")
        assert.strictEqual(next.expiresIn, "24:00:00")
        assert.notStrictEqual(next.commitment, first.commitment)
        yield* service.view(user("carol"))
        assert.deepStrictEqual(reads.seeds, ["2026-05-01", "2026-05-02"])
        // Back in the first round (a test clock): its seed is still known, and still the same one.
        yield* TestClock.setTime(NOON_LAGOS)
        assert.strictEqual((yield* service.view(user("carol"))).commitment, first.commitment)
        assert.deepStrictEqual(reads.seeds, ["2026-05-01", "2026-05-02"])
      })
    )
  )

  it.effect("keeps its caches per service instance", () => {
    const reads: Reads = { active: 0, seeds: [] }
    const view = Effect.gen(function* () {
      yield* TestClock.setTime(NOON_LAGOS)
      return yield* (yield* SpinAndWinService).view(user("dave"))
    })
    return Effect.gen(function* () {
      yield* Effect.provide(view, counted(reads))
      yield* Effect.provide(view, counted(reads))
      assert.strictEqual(reads.active, 2)
      assert.deepStrictEqual(reads.seeds, ["2026-05-01", "2026-05-01"])
    })
  })
})
