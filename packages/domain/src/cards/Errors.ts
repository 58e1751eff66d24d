import { Schema, SchemaIssue } from "effect"
import { CardId } from "./Model.ts"

/** One broken rule: the request field it is about (`cardNumber`, `expiryYear`…) and what is wrong. */
export const CardValidationIssue = Schema.Struct({
  path: Schema.String,
  message: Schema.String
})
export type CardValidationIssue = typeof CardValidationIssue.Type

/**
 * The card was refused; `issues` lists every rule it breaks, not only the first. No message ever
 * repeats the card number or the CVV.
 */
export class CardValidationError extends Schema.TaggedError<CardValidationError>()("CardValidationError", {
  issues: Schema.NonEmptyArray(CardValidationIssue)
}) {
  override get message(): string {
    return "Invalid card"
  }

  /**
   * The issues of a failed decode of a card request (`NewCard`), with their paths joined by dots.
   * Checks of `NewCard` never quote the input, so neither do these messages.
   */
  static fromSchemaError(error: Schema.SchemaError): CardValidationError {
    const issues = formatter(error.issue).issues.map(
      (entry): CardValidationIssue => ({
        path: (entry.path ?? [])
          .map((segment) => String(typeof segment === "object" ? segment.key : segment))
          .join("."),
        message: entry.message
      })
    )
    const [first, ...rest] = issues
    return new CardValidationError({
      issues: first === undefined ? [{ path: "", message: "Invalid card" }] : [first, ...rest]
    })
  }
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** The user already has this card number registered (and not deleted), whatever its expiry. */
export class DuplicateCard extends Schema.TaggedError<DuplicateCard>()("DuplicateCard", {}) {
  override get message(): string {
    return "This card is already registered"
  }
}

/** The user already has the maximum number of active cards. */
export class CardLimitReached extends Schema.TaggedError<CardLimitReached>()("CardLimitReached", {
  limit: Schema.Int
}) {
  override get message(): string {
    return `A user may register at most ${this.limit} cards; delete one first`
  }
}

/** No active card of this user has this id: unknown, deleted, or another user's. */
export class CardNotFound extends Schema.TaggedError<CardNotFound>()("CardNotFound", {
  cardId: CardId
}) {
  override get message(): string {
    return "Card not found"
  }
}
