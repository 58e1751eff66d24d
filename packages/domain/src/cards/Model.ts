import { DateTime, Effect, Option, Schema, SchemaIssue, SchemaTransformation } from "effect"
import { wellFormed } from "../text/WellFormed.ts"
import { isLuhnValid } from "./Luhn.ts"

/** The card networks the service registers cards of (CONTRACT §3). */
export const CARD_BRANDS = [
  "VISA",
  "MASTERCARD",
  "AMEX",
  "DISCOVER",
  "VERVE",
  "JCB",
  "DINERS",
  "UNIONPAY",
  "MAESTRO"
] as const
export const CardBrand = Schema.Literals(CARD_BRANDS)
export type CardBrand = typeof CardBrand.Type

/** At most this many cards, not deleted, per user. */
export const MAX_ACTIVE_CARDS = 10

/** An expiry year may be at most this many years after the current one (in UTC). */
export const MAX_EXPIRY_YEARS_AHEAD = 20

export const CardId = Schema.String.check(Schema.isUUID(undefined, { message: "cardId must be a UUID" })).pipe(
  Schema.brand("CardId")
)
export type CardId = typeof CardId.Type

/**
 * A keyed fingerprint of a card number (lowercase hex HMAC-SHA256): equal for equal numbers, so
 * duplicates are found, but useless without the key to anyone holding the database.
 */
export const CardFingerprint = Schema.String.check(Schema.isPattern(/^[0-9a-f]{64}$/)).pipe(
  Schema.brand("CardFingerprint")
)
export type CardFingerprint = typeof CardFingerprint.Type

const DIGITS = /^[0-9]+$/
const CONTROL_CHARACTERS = /\p{Cc}/u
// No name has this many digits; a card number typed into the name field has at least as many. It
// would otherwise be stored in clear next to the card.
const MAX_DIGITS_IN_NAME = 11

/**
 * Digits of any script, after NFKC (which folds fullwidth, circled and superscript digits into ASCII
 * ones): a card number typed in fullwidth or Arabic-Indic digits is still a card number (issue 34).
 */
const digitCount = (text: string) => text.normalize("NFKC").match(/\p{Nd}/gu)?.length ?? 0

export const CardholderName = Schema.String.annotate({ message: "cardholderName must be a string" })
  .pipe(Schema.decodeTo(Schema.Trimmed, SchemaTransformation.trim()))
  .check(
    Schema.isBetweenCodePoints(2, 100, { message: "cardholderName must be 2 to 100 characters long" }),
    Schema.makeFilter((name: string) => !CONTROL_CHARACTERS.test(name), {
      message: "cardholderName must not contain control characters"
    }),
    wellFormed.annotate({ message: "cardholderName must not hold a lone surrogate" }),
    Schema.makeFilter((name: string) => digitCount(name) <= MAX_DIGITS_IN_NAME, {
      message: "cardholderName must not contain a card number"
    })
  )

/** The card number's digits, checked but still in clear: only ever used inside {@link CardNumber}. */
const CardNumberDigits = Schema.String.annotate({ message: "cardNumber must be a string of digits" }).check(
  Schema.makeFilter((digits: string) => DIGITS.test(digits), { message: "cardNumber must contain digits only" }, true),
  Schema.makeFilter(
    (digits: string) => digits.length >= 12 && digits.length <= 19,
    { message: "cardNumber must be 12 to 19 digits long" },
    true
  ),
  Schema.makeFilter(isLuhnValid, { message: "cardNumber is not a valid card number (its check digit is wrong)" })
)

/**
 * The full card number, decoded from a string of digits into a `Redacted`: `String()`,
 * `JSON.stringify`, `console.log` and Effect's loggers all print `<redacted>`. It lives only in
 * memory for the length of a request; {@link Redacted.value} is called where a digit is needed.
 */
export const CardNumber = Schema.RedactedFromValue(CardNumberDigits)
export type CardNumber = typeof CardNumber.Type

const CvvDigits = Schema.String.annotate({ message: "cvv must be a string of digits" }).check(
  Schema.makeFilter((digits: string) => DIGITS.test(digits), { message: "cvv must contain digits only" }, true),
  Schema.makeFilter((digits: string) => digits.length === 3 || digits.length === 4, {
    message: "cvv must be 3 or 4 digits long"
  })
)

/** The card security code, as redacted as the number. Checked, never stored, never logged. */
export const Cvv = Schema.RedactedFromValue(CvvDigits)
export type Cvv = typeof Cvv.Type

const integer = (field: string) =>
  Schema.Number.annotate({ message: `${field} must be an integer` }).check(
    Schema.isInt({ message: `${field} must be an integer` })
  )

export const ExpiryMonth = integer("expiryMonth").check(
  Schema.isBetween({ minimum: 1, maximum: 12 }, { message: "expiryMonth must be between 1 and 12" })
)

export const ExpiryYear = integer("expiryYear").check(
  Schema.isBetween({ minimum: 1000, maximum: 9999 }, { message: "expiryYear must be a four-digit year" })
)

const field = <S extends Schema.Top>(name: string, description: string) =>
  Schema.annotateKey<S>({ description, messageMissingKey: `${name} is required` })

/**
 * The body of `POST /v1/user/cards` (spec 2.6). Decoding checks every rule that needs nothing but
 * the input; the rules that need the clock or the card network (expiry, network, CVV length) are
 * checked by `CardsService.add`.
 */
export class NewCard extends Schema.Class<NewCard>("NewCard")({
  cardholderName: CardholderName.pipe(field("cardholderName", "Name on the card; trimmed, 2 to 100 characters")),
  cardNumber: CardNumber.pipe(
    field("cardNumber", "Full card number: 12 to 19 digits, Luhn-valid, of a supported network; never stored")
  ),
  expiryMonth: ExpiryMonth.pipe(field("expiryMonth", "Expiry month, 1 to 12")),
  expiryYear: ExpiryYear.pipe(
    field("expiryYear", "Four-digit expiry year; valid through the month's last day (UTC), at most 20 years ahead")
  ),
  cvv: Cvv.pipe(field("cvv", "Security code: 4 digits for AMEX, 3 otherwise; checked, never stored"))
}) {}

const SECONDS_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/

/** A UTC instant written `YYYY-MM-DDTHH:mm:ssZ`, without fractional seconds (spec 2.6 `createdAt`). */
export const UtcSecondsTimestamp = Schema.String.pipe(
  Schema.decodeTo(
    Schema.DateTimeUtc,
    SchemaTransformation.transformEffect<DateTime.Utc, string>({
      decode: (text, options) => {
        const parsed = SECONDS_TIMESTAMP.test(text) ? DateTime.make(text) : Option.none()
        return Option.match(parsed, {
          onNone: () =>
            Effect.fail(
              new SchemaIssue.InvalidValue({ expected: "a UTC timestamp written YYYY-MM-DDTHH:mm:ssZ" }, text, options)
            ),
          onSome: (value) => Effect.succeed(DateTime.toUtc(value))
        })
      },
      encode: (value) => Effect.succeed(formatUtcSeconds(value))
    })
  )
)

/** `2026-11-21T18:30:12Z`: the instant in UTC, fractional seconds dropped. */
export const formatUtcSeconds = (value: DateTime.DateTime): string =>
  DateTime.formatIso(DateTime.toUtc(value)).replace(/\.\d+Z$/, "Z")

/** The instant truncated to whole seconds, as `createdAt` is shown and stored. */
export const truncateToSeconds = (value: DateTime.Utc): DateTime.Utc =>
  DateTime.makeUnsafe(Math.floor(DateTime.toEpochMillis(value) / 1000) * 1000)

/**
 * A registered card as answered (spec 2.6 response `data`), keys in the spec's order. Nothing in
 * it can give the card number back: the mask shows at most the prefix and the last four.
 *
 * A plain struct, not a `Schema.Class` (as `WheelView`, issue 16): the repository builds it from
 * columns its row schema has just checked, and a class constructor would check every field again
 * before the HTTP response's encoding checks them a third time. The schema still describes the value.
 */
export const Card = Schema.Struct({
  cardId: CardId,
  cardholderName: Schema.String,
  brand: CardBrand,
  last4: Schema.String.check(Schema.isPattern(/^[0-9]{4}$/)),
  maskedNumber: Schema.String,
  expiryMonth: Schema.Int,
  expiryYear: Schema.Int,
  createdAt: UtcSecondsTimestamp
}).annotate({ identifier: "Card" })
export type Card = typeof Card.Type

/** One page of a user's cards; the HTTP layer bounds `limit` (1–200) and `offset` (≥ 0). */
export interface CardPage {
  readonly limit: number
  readonly offset: number
}
