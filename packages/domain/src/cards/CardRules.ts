import { Array as Arr, DateTime, Option, Result } from "effect"
import type { CardValidationIssue } from "./Errors.ts"
import { CARD_BRANDS, type CardBrand, MAX_EXPIRY_YEARS_AHEAD } from "./Model.ts"

/** AMEX prints a 4-digit code on the front; every other network a 3-digit one on the back. */
export const requiredCvvLength = (brand: CardBrand): 3 | 4 => (brand === "AMEX" ? 4 : 3)

/**
 * The first instant the card is no longer valid: a card is valid through the last day of its
 * expiry month, judged in UTC, so it expires at 00:00:00Z on the first day of the next month.
 */
export const expiresAt = (expiryMonth: number, expiryYear: number): DateTime.Utc =>
  // Date.UTC rolls month 12 (zero-based: the thirteenth) over to January of the next year.
  DateTime.makeUnsafe(Date.UTC(expiryYear, expiryMonth, 1))

const unknownNetwork: CardValidationIssue = {
  path: "cardNumber",
  message: `cardNumber is not a valid number of a supported card network (${CARD_BRANDS.join(", ")})`
}

/** What the rules that need more than the request itself look at. */
export interface CardFacts {
  /** The network of the number, or none when no supported network issues such a number. */
  readonly brand: Option.Option<CardBrand>
  readonly expiryMonth: number
  readonly expiryYear: number
  readonly cvvLength: number
}

/**
 * Every rule of CONTRACT §3 that depends on the network or the clock, all checked at once:
 * a supported network, not expired at `now`, expiry year at most {@link MAX_EXPIRY_YEARS_AHEAD}
 * after the current UTC year, and a CVV as long as the network prints it.
 */
export const cardRuleIssues = (facts: CardFacts, now: DateTime.Utc): Array<CardValidationIssue> => {
  const issues: Array<CardValidationIssue> = []
  if (Option.isNone(facts.brand)) issues.push(unknownNetwork)
  const currentYear = DateTime.getPartUtc(now, "year")
  if (DateTime.toEpochMillis(now) >= DateTime.toEpochMillis(expiresAt(facts.expiryMonth, facts.expiryYear))) {
    issues.push({
      path: facts.expiryYear < currentYear ? "expiryYear" : "expiryMonth",
      message: "the card has expired: it is valid through the last day of its expiry month (UTC)"
    })
  } else if (facts.expiryYear > currentYear + MAX_EXPIRY_YEARS_AHEAD) {
    issues.push({ path: "expiryYear", message: `expiryYear must be at most ${currentYear + MAX_EXPIRY_YEARS_AHEAD}` })
  }
  if (Option.isSome(facts.brand)) {
    const required = requiredCvvLength(facts.brand.value)
    if (facts.cvvLength !== required) {
      issues.push({ path: "cvv", message: `cvv must be ${required} digits long for ${facts.brand.value} cards` })
    }
  }
  return issues
}

/** {@link cardRuleIssues} as a verdict: the card's network when no rule is broken, else every issue. */
export const checkCardRules = (
  facts: CardFacts,
  now: DateTime.Utc
): Result.Result<CardBrand, Arr.NonEmptyArray<CardValidationIssue>> => {
  const issues = cardRuleIssues(facts, now)
  if (Arr.isArrayNonEmpty(issues)) return Result.fail(issues)
  return Option.match(facts.brand, {
    onNone: () => Result.fail([unknownNetwork]),
    onSome: (brand) => Result.succeed(brand)
  })
}
