import type { Currency } from "../money/index.ts"
import { cashLabel, coinLabel, NO_PRIZE_LABEL } from "./Labels.ts"
import { type Prize, Segment, type SegmentId, segmentIdOf, type Wheel, WheelDefinition } from "./Model.ts"

/** The default wheel of CONTRACT §3 in display order: prize and weight (weights sum to 100). */
export const DEFAULT_SEGMENTS: ReadonlyArray<Prize & { readonly weight: number }> = [
  { type: "cash", value: 50, weight: 10 },
  { type: "coin", value: 10, weight: 20 },
  { type: "cash", value: 100, weight: 8 },
  { type: "coin", value: 20, weight: 15 },
  { type: "cash", value: 0, weight: 30 },
  { type: "cash", value: 500, weight: 5 },
  { type: "coin", value: 50, weight: 10 },
  { type: "cash", value: 1000, weight: 2 }
]

/** "₦50", "10 coins", "Try again": the label of a prize on a wheel of this currency. */
export const prizeLabel = (currency: Currency, prize: Prize): string =>
  prize.value === 0 ? NO_PRIZE_LABEL : prize.type === "coin" ? coinLabel(prize.value) : cashLabel(currency, prize.value)

export const makeSegment = (currency: Currency, prize: Prize, weight: number): Segment => {
  const label = prizeLabel(currency, prize)
  return new Segment({ id: segmentIdOf(label) as SegmentId, label, type: prize.type, value: prize.value, weight })
}

/** The default wheel with its cash labels in `currency` (the migration seeds it in NGN). */
export const defaultWheel = (currency: Currency): WheelDefinition =>
  new WheelDefinition({
    currency,
    segments: DEFAULT_SEGMENTS.map(({ weight, ...prize }) => makeSegment(currency, prize, weight))
  })

/**
 * Whether a stored wheel is exactly the default in its own currency, i.e. nobody has edited it. Only
 * such a wheel is re-issued in another currency when `DEFAULT_CURRENCY` changes; an edited wheel
 * is left as its editor made it.
 */
export const isDefaultWheel = (wheel: Wheel): boolean => {
  // A cached wheel is asked on every request: each (immutable) wheel is compared once.
  const judged = defaultness.get(wheel)
  if (judged !== undefined) return judged
  const verdict = matchesDefault(wheel)
  defaultness.set(wheel, verdict)
  return verdict
}

const defaultness = new WeakMap<Wheel, boolean>()

const matchesDefault = (wheel: Wheel): boolean => {
  const expected = defaultWheel(wheel.currency).segments
  return (
    wheel.segments.length === expected.length &&
    wheel.segments.every((segment, index) => {
      const other = expected[index]
      return (
        other !== undefined &&
        segment.id === other.id &&
        segment.label === other.label &&
        segment.type === other.type &&
        segment.value === other.value &&
        segment.weight === other.weight
      )
    })
  )
}
