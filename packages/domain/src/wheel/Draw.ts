import { Option } from "effect"
import { MAX_TOTAL_WEIGHT, type Segment } from "./Model.ts"

/** Bytes read per candidate: a big-endian unsigned 32-bit integer. */
export const CHUNK_BYTES = 4

const CHUNK_RANGE = 2 ** 32

/**
 * The largest multiple of `total` that fits in 32 bits: candidates at or above it are rejected,
 * because keeping them would make the first `2^32 mod total` draw values slightly more likely.
 */
export const acceptanceLimit = (total: number): number => CHUNK_RANGE - (CHUNK_RANGE % total)

/**
 * A uniform integer in [0, total) from random bytes, by rejection sampling: each 4-byte chunk, in
 * order, is read as a big-endian unsigned integer `c`; the first `c` below `acceptanceLimit(total)`
 * gives `c mod total`. Every value then has exactly `acceptanceLimit / total` chunks mapping to it,
 * so there is no modulo bias. `None` when every chunk was rejected (for the default wheel, odds of
 * 1 in 2^204 for a 32-byte HMAC), in which case the caller draws more bytes.
 */
export const drawFromBytes = (bytes: Uint8Array, total: number): Option.Option<number> => {
  if (!Number.isInteger(total) || total < 1 || total > MAX_TOTAL_WEIGHT) {
    throw new RangeError(`a draw needs a total weight from 1 to 2^32, not ${total}`)
  }
  const limit = acceptanceLimit(total)
  for (let offset = 0; offset + CHUNK_BYTES <= bytes.length; offset += CHUNK_BYTES) {
    const chunk =
      ((bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!) >>> 0
    if (chunk < limit) return Option.some(chunk % total)
  }
  return Option.none()
}

/**
 * The segment a draw lands on: segments own consecutive ranges of [0, total) in display order, each
 * as wide as its weight (the default wheel: ₦50 owns 0–9, 10 coins 10–29, ₦100 30–37, …). A segment
 * of weight 0 owns no range.
 */
export const segmentIndexAt = (segments: ReadonlyArray<Segment>, draw: number): number => {
  let end = 0
  for (const [index, segment] of segments.entries()) {
    end += segment.weight
    if (draw < end) return index
  }
  throw new RangeError(`draw ${draw} is outside the wheel's total weight ${end}`)
}

export const segmentAt = (segments: ReadonlyArray<Segment>, draw: number): Segment =>
  segments[segmentIndexAt(segments, draw)]!

/** Each segment's range of draw values, [from, to), in display order: what an auditor maps a draw with. */
export const segmentRanges = (
  segments: ReadonlyArray<Segment>
): ReadonlyArray<{ readonly segmentId: Segment["id"]; readonly from: number; readonly to: number }> => {
  let from = 0
  return segments.map((segment) => {
    const range = { segmentId: segment.id, from, to: from + segment.weight }
    from = range.to
    return range
  })
}
