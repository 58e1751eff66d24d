import { Effect, Option } from "effect"
import { Hex } from "effect/encoding"
import { drawFromBytes, segmentAt } from "./Draw.ts"
import type { Segment } from "./Model.ts"
import type { SeedCrypto } from "./SeedCrypto.ts"

/** Bytes of a round's server seed. */
export const SEED_BYTES = 32

/**
 * How many HMACs a draw may take before it is declared broken. Each HMAC gives eight 32-bit chunks
 * and, for any total weight, a chunk is rejected with probability below 1/2, so reaching this
 * limit means the hash function is not behaving as one.
 */
export const MAX_DRAW_ATTEMPTS = 64

/** What a draw is bound to: the player, the round, and which of their spins in the round it is. */
export interface DrawInput {
  readonly userId: string
  readonly round: string
  readonly nonce: number
}

/**
 * The HMAC message of a draw's `attempt`-th HMAC: `userId:round:nonce`, then `userId:round:nonce:1`,
 * `:2`… only if every chunk of the previous one was rejected. The round (a fixed-width date) and the
 * nonce (digits) are read from the right, so no two inputs share a message even when the user id
 * contains colons.
 */
export const drawMessage = (input: DrawInput, attempt: number): string => {
  const base = `${input.userId}:${input.round}:${input.nonce}`
  return attempt === 0 ? base : `${base}:${attempt}`
}

/** The published commitment to a seed: lower-case hex of its SHA-256. */
export const commitmentOf = (crypto: SeedCrypto["Service"], seed: Uint8Array): Effect.Effect<string> =>
  Effect.map(crypto.sha256(seed), Hex.encode)

/** The draw value in [0, total) of `input` under `seed`: HMAC-SHA256, then `drawFromBytes`. */
export const drawValue = (
  crypto: SeedCrypto["Service"],
  seed: Uint8Array,
  input: DrawInput,
  total: number
): Effect.Effect<number> =>
  Effect.gen(function* () {
    for (let attempt = 0; attempt < MAX_DRAW_ATTEMPTS; attempt++) {
      const found = drawFromBytes(yield* crypto.hmacSha256(seed, drawMessage(input, attempt)), total)
      if (Option.isSome(found)) return found.value
    }
    return yield* Effect.die(new Error(`no draw accepted after ${MAX_DRAW_ATTEMPTS} HMACs`))
  })

export interface Verification {
  readonly commitmentMatches: boolean
  readonly drawValue: number
  readonly segment: Segment
}

/**
 * Re-does a spin from what is published once its round is over: the revealed seed must hash to the
 * commitment shown during the round, and its HMAC must give the recorded draw and segment.
 */
export const verify = (
  crypto: SeedCrypto["Service"],
  options: {
    readonly seed: Uint8Array
    readonly commitment: string
    readonly input: DrawInput
    readonly segments: ReadonlyArray<Segment>
  }
): Effect.Effect<Verification> =>
  Effect.gen(function* () {
    const commitment = yield* commitmentOf(crypto, options.seed)
    const total = options.segments.reduce((sum, segment) => sum + segment.weight, 0)
    const value = yield* drawValue(crypto, options.seed, options.input, total)
    return {
      commitmentMatches: commitment === options.commitment,
      drawValue: value,
      segment: segmentAt(options.segments, value)
    }
  })
