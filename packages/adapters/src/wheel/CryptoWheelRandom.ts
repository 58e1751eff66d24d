import { randomBytes, randomInt, randomUUID } from "node:crypto"
import { WheelRandom } from "@payments-gaming/domain/wheel"
import { Effect, Layer } from "effect"

/**
 * `WheelRandom` on the operating system's CSPRNG. `randomInt` rejects out-of-range draws itself, so
 * its integers carry no modulo bias; it accepts bounds up to 2^48.
 */
export const make = WheelRandom.of({
  bytes: (size) => Effect.sync(() => new Uint8Array(randomBytes(size))),
  int: (bound) => Effect.sync(() => randomInt(bound)),
  uuid: Effect.sync(() => randomUUID())
})

export const layer: Layer.Layer<WheelRandom> = Layer.succeed(WheelRandom, make)
