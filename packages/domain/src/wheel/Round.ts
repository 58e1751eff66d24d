import { DateTime, Schema } from "effect"

const ROUND_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/

const isCalendarDate = (text: string): boolean => {
  const match = ROUND_PATTERN.exec(text)
  if (match === null) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  // Date.UTC rolls 2026-02-30 into March; a real date survives the round trip.
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/**
 * A spin round: one calendar day in the wheel's time zone, written `YYYY-MM-DD`. Ids of one zone
 * sort in time order as plain strings.
 */
export const RoundId = Schema.String.check(
  Schema.makeFilter(isCalendarDate, { message: "must be a calendar date written YYYY-MM-DD" })
).pipe(Schema.brand("RoundId"))
export type RoundId = typeof RoundId.Type

const pad = (value: number, width = 2) => String(value).padStart(width, "0")

/** The round `now` falls in: its calendar date in `zone`. */
export const roundOf = (now: DateTime.DateTime, zone: DateTime.TimeZone): RoundId => {
  const parts = DateTime.toParts(DateTime.setZone(now, zone))
  return `${pad(parts.year, 4)}-${pad(parts.month)}-${pad(parts.day)}` as RoundId
}

/**
 * The first instant of a calendar date in `zone`. Built from the wall-clock date and resolved by the
 * zone's own rules, so it is right on days of 23 or 25 hours; where a clock change skips midnight
 * itself, the day starts at the first wall-clock time that exists.
 */
const startOfDate = (year: number, month: number, day: number, zone: DateTime.TimeZone): DateTime.Utc =>
  DateTime.toUtc(DateTime.makeZonedUnsafe({ year, month, day }, { timeZone: zone, adjustForTimeZone: true }))

const dateOf = (round: RoundId) => {
  const [year, month, day] = round.split("-").map(Number) as [number, number, number]
  return { year, month, day }
}

export const roundStart = (round: RoundId, zone: DateTime.TimeZone): DateTime.Utc => {
  const { year, month, day } = dateOf(round)
  return startOfDate(year, month, day, zone)
}

/** The instant the round ends: the next local midnight, which is also the next round's start. */
export const roundEnd = (round: RoundId, zone: DateTime.TimeZone): DateTime.Utc => {
  const { year, month, day } = dateOf(round)
  const next = new Date(Date.UTC(year, month - 1, day + 1))
  return startOfDate(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), zone)
}

/**
 * A duration as `HH:MM:SS`, rounded up to the whole second: a countdown that shows 00:00:00 only
 * once the round is over. Hours are not wrapped (a 25-hour day starts at 25:00:00).
 */
export const formatCountdown = (millis: number): string => {
  const seconds = Math.max(0, Math.ceil(millis / 1000))
  return `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor((seconds % 3600) / 60))}:${pad(seconds % 60)}`
}

/** Time left in the round `now` falls in, as `HH:MM:SS`. */
export const expiresIn = (now: DateTime.Utc, zone: DateTime.TimeZone): string =>
  formatCountdown(DateTime.toEpochMillis(roundEnd(roundOf(now, zone), zone)) - DateTime.toEpochMillis(now))

/**
 * A round's bounds in epoch milliseconds: it is open from `startMillis` (inclusive) to `endMillis`
 * (exclusive). A spin is recorded only while the store's own clock is inside them (issue 34).
 */
export interface RoundWindow {
  readonly startMillis: number
  readonly endMillis: number
}

/**
 * How long after a round ends its seed stays secret: longer than any spin can take between reading
 * the time and its one write (a request has 15 s; a statement waiting on a lock at most 10 s on a
 * pipelined connection), so every spin of the round has been recorded or refused as `RoundClosed`
 * before anyone can read the seed, even with this instance's clock some seconds ahead of the
 * database's (issue 34).
 */
export const REVEAL_GRACE_MILLIS = 60_000

/** The round an instant falls in, with the time left in it as `HH:MM:SS`, and its bounds. */
export interface RoundAt extends RoundWindow {
  readonly round: RoundId
  readonly expiresIn: string
}

/**
 * `roundOf` and `expiresIn` with the round's bounds worked out once per round: finding them takes
 * several time-zone conversions, after which any instant inside them needs a comparison and a
 * subtraction. Each call makes its own memo (one per service instance). Bounds are kept only when
 * both the first and the last millisecond of them belong to the round, so, calendar dates never
 * running backwards in a zone, every instant between does too; any other instant, an earlier one
 * included (a clock set back in a test), is worked out afresh.
 */
export const makeRoundClock = (zone: DateTime.TimeZone): ((now: DateTime.Utc) => RoundAt) => {
  let current: { readonly round: RoundId; readonly start: number; readonly end: number } | undefined
  return (now) => {
    const millis = DateTime.toEpochMillis(now)
    if (current === undefined || millis < current.start || millis >= current.end) {
      const round = roundOf(now, zone)
      const start = DateTime.toEpochMillis(roundStart(round, zone))
      const end = DateTime.toEpochMillis(roundEnd(round, zone))
      const holds =
        start <= millis &&
        millis < end &&
        roundOf(DateTime.makeUnsafe(start), zone) === round &&
        roundOf(DateTime.makeUnsafe(end - 1), zone) === round
      if (!holds) return { round, expiresIn: formatCountdown(end - millis), startMillis: start, endMillis: end }
      current = { round, start, end }
    }
    return {
      round: current.round,
      expiresIn: formatCountdown(current.end - millis),
      startMillis: current.start,
      endMillis: current.end
    }
  }
}

/** Whether `round` ended before `current` began (both rounds of the same zone). */
export const isBefore = (round: RoundId, current: RoundId): boolean => round < current
