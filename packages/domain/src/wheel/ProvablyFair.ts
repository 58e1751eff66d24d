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

/**
 * What a draw is bound to, besides the round's server seed (the HMAC key): the player's client seed,
 * the player, and the nonce (their spin count under that client seed).
 */
export interface DrawInput {
  readonly clientSeed: string
  readonly userId: string
  readonly nonce: number
}

/**
 * What a spin recorded before client seeds existed was bound to: the player, the round, and which
 * of their spins in the round it was (always 0).
 */
export interface LegacyDrawInput {
  readonly userId: string
  readonly round: string
  readonly nonce: number
}

/**
 * The HMAC message of a draw's `attempt`-th HMAC: the JSON array `[clientSeed, userId, nonce]`,
 * then `[clientSeed, userId, nonce, 1]`, `[…, 2]`… only if every chunk of the previous one was
 * rejected. JSON keeps every field whole (quotes and backslashes inside a seed or an id are escaped,
 * a lone surrogate is written as an escape), so no two inputs share a message, and every language
 * writes it the same way: `JSON.stringify` in JavaScript, `json.dumps(…, separators=(",", ":"),
 * ensure_ascii=False)` in Python. A legacy message ends in a digit, never in `]`, so no message of
 * one scheme is a message of the other.
 */
export const drawMessage = (input: DrawInput, attempt: number): string =>
  JSON.stringify(
    attempt === 0
      ? [input.clientSeed, input.userId, input.nonce]
      : [input.clientSeed, input.userId, input.nonce, attempt]
  )

/**
 * The message of a spin recorded before client seeds existed: `userId:round:nonce`, then
 * `userId:round:nonce:1`, `:2`… The round (a fixed-width date) and the nonce (digits) are read from
 * the right, so no two inputs share a message even when the user id contains colons.
 */
export const legacyDrawMessage = (input: LegacyDrawInput, attempt: number): string => {
  const base = `${input.userId}:${input.round}:${input.nonce}`
  return attempt === 0 ? base : `${base}:${attempt}`
}

const messageOf = (input: DrawInput | LegacyDrawInput, attempt: number): string =>
  "clientSeed" in input ? drawMessage(input, attempt) : legacyDrawMessage(input, attempt)

/** The published commitment to a seed: lower-case hex of its SHA-256. */
export const commitmentOf = (crypto: SeedCrypto["Service"], seed: Uint8Array): Effect.Effect<string> =>
  Effect.map(crypto.sha256(seed), Hex.encode)

/**
 * The draw value in [0, total) of `input` under `seed`: HMAC-SHA256, then `drawFromBytes`. A
 * `LegacyDrawInput` (no client seed) recomputes a spin recorded before client seeds existed.
 */
export const drawValue = Effect.fnUntraced(function* (
  crypto: SeedCrypto["Service"],
  seed: Uint8Array,
  input: DrawInput | LegacyDrawInput,
  total: number
): Effect.fn.Return<number> {
  for (let attempt = 0; attempt < MAX_DRAW_ATTEMPTS; attempt++) {
    const found = drawFromBytes(yield* crypto.hmacSha256(seed, messageOf(input, attempt)), total)
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
export const verify = Effect.fnUntraced(function* (
  crypto: SeedCrypto["Service"],
  options: {
    readonly seed: Uint8Array
    readonly commitment: string
    readonly input: DrawInput | LegacyDrawInput
    readonly segments: ReadonlyArray<Segment>
  }
): Effect.fn.Return<Verification> {
  const commitment = yield* commitmentOf(crypto, options.seed)
  const total = options.segments.reduce((sum, segment) => sum + segment.weight, 0)
  const value = yield* drawValue(crypto, options.seed, options.input, total)
  return {
    commitmentMatches: commitment === options.commitment,
    drawValue: value,
    segment: segmentAt(options.segments, value)
  }
})
