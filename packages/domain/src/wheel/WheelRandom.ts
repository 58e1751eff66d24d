import { Context, type Effect } from "effect"

/**
 * Unpredictable randomness for the wheel: round seeds and spin ids. Production reads the operating
 * system's CSPRNG; tests plug in a deterministic sequence so outcomes can be forced.
 */
export class WheelRandom extends Context.Service<
  WheelRandom,
  {
    /** `size` random bytes (a round seed is 32). */
    bytes(size: number): Effect.Effect<Uint8Array>
    /**
     * A uniform integer in [0, bound), without modulo bias. Spins are drawn from the round seed
     * instead (so they can be verified); this serves draws that need no proof.
     */
    int(bound: number): Effect.Effect<number>
    /** A random (version 4) UUID, lower case: spin ids. */
    readonly uuid: Effect.Effect<string>
  }
>()("@payments-gaming/domain/wheel/WheelRandom") {}
