import { Clock, Effect, Layer } from "effect"
import type { Wheel } from "./Model.ts"
import type { RoundId } from "./Round.ts"
import { RoundSeeds } from "./RoundSeeds.ts"
import type { RoundSeed } from "./Spin.ts"
import { WheelRepository } from "./WheelRepository.ts"

/**
 * How long the cached `WheelRepository` keeps the active wheel before reading it again: a wheel
 * changed by another instance is drawn on here within this time.
 */
export const ACTIVE_WHEEL_TTL_MILLIS = 10_000

/** Seeds of this many recent rounds are kept; only the current round's is ever asked for twice. */
const KNOWN_SEEDS = 4

/**
 * `WheelRepository` with its active wheel kept for `ACTIVE_WHEEL_TTL_MILLIS`: the wheel changes
 * rarely and only as a new version, so one read serves every request meanwhile. A wheel this
 * instance installs (`replaceActive`) is kept as read now. A clock that moved backwards (a test's)
 * reads it again. One cache per layer build, so per service instance.
 */
export const layerCachedWheelRepository: Layer.Layer<WheelRepository, never, WheelRepository> = Layer.effect(
  WheelRepository,
  Effect.gen(function* () {
    const inner = yield* WheelRepository
    let cached: { readonly wheel: Wheel; readonly readAt: number } | undefined
    const keep = (readAt: number) => (wheel: Wheel) => {
      cached = { wheel, readAt }
      return wheel
    }
    const active = Effect.flatMap(Clock.currentTimeMillis, (millis) => {
      const known = cached
      if (known !== undefined && millis >= known.readAt && millis - known.readAt < ACTIVE_WHEEL_TTL_MILLIS) {
        return Effect.succeed(known.wheel)
      }
      return Effect.map(inner.active, keep(millis))
    })
    return WheelRepository.of({
      active,
      byVersion: inner.byVersion,
      replaceActive: (expectedVersion, definition) =>
        Effect.flatMap(Clock.currentTimeMillis, (millis) =>
          Effect.map(inner.replaceActive(expectedVersion, definition), keep(millis))
        )
    })
  })
)

/**
 * `RoundSeeds` remembering the seed each of the last few rounds got: a stored seed never changes
 * (the first one stored wins for good), so each round's is read once. `revealed` is not memoised.
 */
export const layerMemoisedRoundSeeds: Layer.Layer<RoundSeeds, never, RoundSeeds> = Layer.effect(
  RoundSeeds,
  Effect.gen(function* () {
    const inner = yield* RoundSeeds
    const known = new Map<RoundId, RoundSeed>()
    return RoundSeeds.of({
      getOrCreate: (round, fresh) => {
        const seed = known.get(round)
        if (seed !== undefined) return Effect.succeed(seed)
        return Effect.map(inner.getOrCreate(round, fresh), (stored) => {
          known.set(round, stored)
          if (known.size > KNOWN_SEEDS) known.delete(known.keys().next().value as RoundId)
          return stored
        })
      },
      revealed: inner.revealed
    })
  })
)

/** Both caches, to put between `SpinAndWinService.layer` and the stores it reads. */
export const layerWheelCaches: Layer.Layer<WheelRepository | RoundSeeds, never, WheelRepository | RoundSeeds> =
  Layer.merge(layerCachedWheelRepository, layerMemoisedRoundSeeds)
