import { Schema } from "effect"
import { Currency } from "../money/index.ts"

/** The wheel always shows this many segments (spec 2.4). */
export const WHEEL_SIZE = 8

/**
 * The largest total weight a wheel may have: a draw is taken from 32-bit chunks of an HMAC (see
 * `Draw.ts`), so the range must fit in one chunk.
 */
export const MAX_TOTAL_WEIGHT = 2 ** 32

/** What a segment pays: money in the wheel's currency, or coins. */
export const SegmentType = Schema.Literals(["cash", "coin"])
export type SegmentType = typeof SegmentType.Type

/** `seg-` and the label lower-cased with every white space removed: `seg-₦1,000`, `seg-tryagain`. */
export const segmentIdOf = (label: string): string => `seg-${label.toLowerCase().replace(/\s+/gu, "")}`

export const SegmentId = Schema.String.check(
  Schema.isPattern(/^seg-\S+$/u, { message: "must be seg- followed by the label without white space" }),
  Schema.isMaxLength(80)
).pipe(Schema.brand("SegmentId"))
export type SegmentId = typeof SegmentId.Type

/** A prize amount: whole currency units for `cash`, coins for `coin`; 0 pays nothing. */
export const PrizeValue = Schema.Int.check(
  Schema.isGreaterThanOrEqualTo(0, { message: "must be at least 0" }),
  Schema.isLessThanOrEqualTo(Number.MAX_SAFE_INTEGER)
)

/** How likely a segment is, relative to the others; 0 means it is shown but never drawn. */
export const Weight = Schema.Int.check(
  Schema.isGreaterThanOrEqualTo(0, { message: "must be at least 0" }),
  Schema.isLessThanOrEqualTo(MAX_TOTAL_WEIGHT)
)

/** What a spin pays, as recorded with the spin. */
export const Prize = Schema.Struct({ type: SegmentType, value: PrizeValue })
export type Prize = typeof Prize.Type

/** One segment of a wheel as stored, weight included. Weights never leave the server. */
export class Segment extends Schema.Class<Segment>("Segment")({
  id: SegmentId,
  label: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(64)),
  type: SegmentType,
  value: PrizeValue,
  weight: Weight
}) {
  get prize(): Prize {
    return { type: this.type, value: this.value }
  }
}

/** A segment as clients see it (spec 2.4), keys in the order `id, label, value, type`. */
export const PublicSegment = Schema.Struct({
  id: SegmentId,
  label: Schema.String,
  value: Schema.Int,
  type: SegmentType
})
export type PublicSegment = typeof PublicSegment.Type

export const toPublicSegment = (segment: Segment): PublicSegment => ({
  id: segment.id,
  label: segment.label,
  value: segment.value,
  type: segment.type
})

export const totalWeight = (segments: ReadonlyArray<Segment>): number =>
  segments.reduce((sum, segment) => sum + segment.weight, 0)

const segmentProblems = (segments: ReadonlyArray<Segment>): ReadonlyArray<string> => {
  const problems: Array<string> = []
  if (segments.length !== WHEEL_SIZE) problems.push(`a wheel has ${WHEEL_SIZE} segments, not ${segments.length}`)
  const ids = new Set<string>()
  for (const segment of segments) {
    if (segment.id !== segmentIdOf(segment.label)) {
      problems.push(`segment "${segment.label}" must have id ${segmentIdOf(segment.label)}, not ${segment.id}`)
    }
    if (ids.has(segment.id)) problems.push(`segment id ${segment.id} appears twice`)
    ids.add(segment.id)
  }
  const total = totalWeight(segments)
  if (total < 1 || total > MAX_TOTAL_WEIGHT) problems.push(`the total weight must be 1 to 2^32, not ${total}`)
  return problems
}

/** Eight segments in display order, ids derived from labels, unique, with a drawable total weight. */
export const WheelSegments = Schema.Array(Segment).check(
  Schema.makeFilter((segments: ReadonlyArray<Segment>) => {
    const problems = segmentProblems(segments)
    return problems.length === 0 ? undefined : problems.join("; ")
  })
)

/** A wheel before it is stored: what an administrator (or the default) defines. */
export class WheelDefinition extends Schema.Class<WheelDefinition>("WheelDefinition")({
  currency: Currency,
  segments: WheelSegments
}) {}

/**
 * A stored wheel. `version` identifies it for ever: a spin records the version it was drawn on, so
 * its draw can be mapped back to a segment after the wheel has changed.
 */
export class Wheel extends Schema.Class<Wheel>("Wheel")({
  version: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  currency: Currency,
  segments: WheelSegments
}) {
  get totalWeight(): number {
    return totalWeight(this.segments)
  }

  /** The same array for the life of this (immutable) wheel: built once, not on every view. */
  get publicSegments(): ReadonlyArray<PublicSegment> {
    let segments = publicSegmentsOf.get(this)
    if (segments === undefined) {
      segments = this.segments.map(toPublicSegment)
      publicSegmentsOf.set(this, segments)
    }
    return segments
  }
}

const publicSegmentsOf = new WeakMap<Wheel, ReadonlyArray<PublicSegment>>()
