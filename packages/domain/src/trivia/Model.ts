import { BigDecimal, DateTime, Effect, Option, Schema, SchemaIssue, SchemaTransformation } from "effect"

/** A trivia challenge's id: a positive integer, small enough to travel as a JSON number. */
export const ChallengeId = Schema.Int.check(
  Schema.isGreaterThanOrEqualTo(1, { message: "must be a positive integer" }),
  Schema.isLessThanOrEqualTo(Number.MAX_SAFE_INTEGER, { message: `must be at most ${Number.MAX_SAFE_INTEGER}` })
).pipe(Schema.brand("ChallengeId"))
export type ChallengeId = typeof ChallengeId.Type

/**
 * A challenge id as it arrives in a URL path segment. Only plain decimal digits are accepted
 * (no sign, exponent, hex, white space or leading zero), which `Number(...)` alone would let in.
 */
export const ChallengeIdFromString = Schema.String.check(
  Schema.isPattern(/^[1-9][0-9]*$/, { message: "must be a positive integer" })
).pipe(Schema.decodeTo(ChallengeId, SchemaTransformation.transform({ decode: Number, encode: String })))

/** How a challenge's prize pool is shared between its winners (see `PrizeAllocation`). */
export const SharingFormula = Schema.Literals(["PROPORTIONAL", "EQUAL"]).annotate({
  message: "must be PROPORTIONAL or EQUAL"
})
export type SharingFormula = typeof SharingFormula.Type

/**
 * The largest prize pool accepted. It has 15 significant digits, the most that survive the trip
 * through a JSON number (an IEEE double) unchanged, so every accepted amount is the exact amount
 * the client wrote; it also fits the `numeric(20,2)` column with room to spare.
 */
export const MAX_PRIZE_AMOUNT = BigDecimal.fromStringUnsafe("999999999999.99")

/** The most winners a challenge may have; it bounds the size of a prize allocation. */
export const MAX_WINNERS = 1_000_000

const INT4_MAX = 2_147_483_647

const hasAtMostTwoDecimals = (amount: BigDecimal.BigDecimal) => BigDecimal.normalize(amount).scale <= 2

/** A prize pool: a non-negative decimal of at most 2 decimal places. */
export const PrizeAmountValue = Schema.BigDecimal.check(
  Schema.isGreaterThanOrEqualToBigDecimal(BigDecimal.fromBigInt(0n), { message: "must be at least 0" }),
  Schema.isLessThanOrEqualToBigDecimal(MAX_PRIZE_AMOUNT, {
    message: `must be at most ${BigDecimal.format(MAX_PRIZE_AMOUNT)}`
  }),
  Schema.makeFilter(hasAtMostTwoDecimals, { message: "must have at most 2 decimal places" })
)

/**
 * A prize pool carried as a JSON number and decoded exactly to a `BigDecimal`. The number is
 * converted from its shortest round-trip decimal form (`String(n)`), never through float
 * arithmetic: `1234567.89` becomes exactly 1234567.89, while `0.1 + 0.2` (0.30000000000000004)
 * is refused for its 17 decimals.
 */
export const PrizeAmount = Schema.Finite.annotate({ message: "must be a finite number" }).pipe(
  Schema.decodeTo(
    PrizeAmountValue,
    SchemaTransformation.transform({
      // A finite number's shortest form is always a valid decimal string, so this cannot miss.
      decode: (n: number) => Option.getOrThrow(BigDecimal.fromString(String(n))),
      encode: (amount: BigDecimal.BigDecimal) => Number(BigDecimal.format(amount))
    })
  )
)

// Calendar validity is checked after the shape: `Date` would quietly roll 2026-02-30 into March.
const UTC_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?Z$/
const UTC_INSTANT_MESSAGE = "must be an ISO 8601 UTC instant ending in Z, such as 2026-01-31T18:00:00.000Z"

const parseUtcInstant = (text: string): Option.Option<DateTime.Utc> => {
  const match = UTC_INSTANT.exec(text)
  if (match === null) return Option.none()
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number
  ]
  const millis = Number((match[7] ?? "").padEnd(3, "0"))
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, second, millis)
  const same =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second
  return same ? Option.some(DateTime.fromDateUnsafe(date)) : Option.none()
}

/**
 * An instant as an ISO 8601 UTC string ending in `Z`, with up to millisecond precision (finer
 * digits are refused rather than silently dropped). Encodes as `YYYY-MM-DDTHH:mm:ss.sssZ`.
 */
export const UtcInstant = Schema.String.check(Schema.isPattern(UTC_INSTANT, { message: UTC_INSTANT_MESSAGE })).pipe(
  Schema.decodeTo(
    Schema.DateTimeUtc,
    SchemaTransformation.transformEffect({
      decode: (text: string, options) =>
        Option.match(parseUtcInstant(text), {
          onNone: () =>
            Effect.fail(new SchemaIssue.InvalidValue({ message: "is not a real calendar date-time" }, text, options)),
          onSome: Effect.succeed
        }),
      encode: (instant: DateTime.Utc) => Effect.succeed(DateTime.formatIso(instant))
    })
  )
)

const intBetween = (minimum: number, maximum: number) =>
  Schema.Number.check(
    Schema.isInt({ message: "must be an integer" }),
    Schema.isBetween({ minimum, maximum }, { message: `must be an integer from ${minimum} to ${maximum}` })
  )

/** The fields a challenge is created or replaced with; all are required. */
export const challengeInputFields = {
  title: Schema.Trim.check(
    Schema.isBetweenCodePoints(1, 200, { message: "must be 1 to 200 characters long once trimmed" })
  ),
  prizeAmount: PrizeAmount,
  startTime: UtcInstant,
  endTime: UtcInstant,
  questionType: intBetween(1, INT4_MAX),
  questionCount: intBetween(1, 100),
  numberOfWinners: intBetween(1, MAX_WINNERS),
  sharingFormula: SharingFormula
}

const endsAfterStart = Schema.makeFilter(
  (input: { readonly startTime: DateTime.Utc; readonly endTime: DateTime.Utc }) =>
    DateTime.isGreaterThan(input.endTime, input.startTime)
      ? undefined
      : { path: ["endTime"], issue: "must be after startTime" }
)

/**
 * The body of both `POST /v1/gaming/trivia/challenges` and the full-replacement
 * `PUT /v1/gaming/trivia/challenges/{challengeId}`. Every rule, the cross-field one included,
 * is a Schema check, so a failed decode lists each broken rule with its field path.
 */
export const ChallengeInput = Schema.Struct(challengeInputFields)
  .check(endsAfterStart)
  .annotate({ identifier: "ChallengeInput" })
export type ChallengeInput = typeof ChallengeInput.Type

/**
 * A stored challenge. Its encoded form is the JSON the API answers with: `prizeAmount` a JSON
 * number with at most 2 decimals, every instant an ISO string with milliseconds and `Z`.
 * `version` starts at 1 and grows by one with every update.
 */
export class Challenge extends Schema.Class<Challenge>("Challenge")({
  id: ChallengeId,
  ...challengeInputFields,
  version: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  createdAt: UtcInstant,
  updatedAt: UtcInstant
}) {
  /** Ended at its end time: a challenge runs over the half-open interval [startTime, endTime). */
  hasEndedAt(now: DateTime.Utc): boolean {
    return DateTime.isLessThanOrEqualTo(this.endTime, now)
  }
}

/** One page of a list; the HTTP layer bounds `limit` (1–200) and `offset` (≥ 0). */
export interface Page {
  readonly limit: number
  readonly offset: number
}
