import { Context, DateTime, Effect, Layer, Redacted, Result } from "effect"
import type { UserId } from "../auth/Model.ts"
import { CardBrandDetector } from "./CardBrandDetector.ts"
import { CardFingerprinter } from "./CardFingerprinter.ts"
import { CardRepository } from "./CardRepository.ts"
import { checkCardRules } from "./CardRules.ts"
import { type CardLimitReached, type CardNotFound, CardValidationError, type DuplicateCard } from "./Errors.ts"
import { lastFour, storedPrefix } from "./Mask.ts"
import { type Card, type CardId, type CardPage, MAX_ACTIVE_CARDS, type NewCard, truncateToSeconds } from "./Model.ts"

/** The card use cases behind `POST/GET/DELETE /v1/user/cards`, always for the calling user. */
export class CardsService extends Context.Service<
  CardsService,
  {
    /**
     * Registers a card already decoded as `NewCard`. Fails `CardValidationError` listing every rule
     * the decoded card still breaks (unknown network, expired, too far ahead, CVV length),
     * `DuplicateCard` when the user has this number already, `CardLimitReached` at
     * {@link MAX_ACTIVE_CARDS} active cards. Keeps only the brand, the prefix, the last four and a
     * keyed fingerprint; the number and the CVV are dropped with the request.
     */
    readonly add: (
      userId: UserId,
      card: NewCard
    ) => Effect.Effect<Card, CardValidationError | DuplicateCard | CardLimitReached>
    /** The user's active cards, oldest first. */
    readonly list: (userId: UserId, page: CardPage) => Effect.Effect<ReadonlyArray<Card>>
    /** Deletes one of the user's cards; `CardNotFound` for an unknown, deleted or another user's card. */
    readonly remove: (userId: UserId, cardId: CardId) => Effect.Effect<void, CardNotFound>
  }
>()("@payments-gaming/domain/cards/CardsService") {
  /** Needs a `CardRepository`, a `CardBrandDetector` and a `CardFingerprinter`; time comes from `Clock`. */
  static readonly layer = Layer.effect(
    CardsService,
    Effect.gen(function* () {
      const repository = yield* CardRepository
      const detector = yield* CardBrandDetector
      const fingerprinter = yield* CardFingerprinter

      // Untraced: a per-request entry point (see BankingService.receive for the cost).
      const add = Effect.fnUntraced(function* (userId: UserId, card: NewCard) {
        const now = yield* DateTime.now
        const checked = checkCardRules(
          {
            brand: yield* detector.detect(card.cardNumber),
            expiryMonth: card.expiryMonth,
            expiryYear: card.expiryYear,
            cvvLength: Redacted.value(card.cvv).length
          },
          now
        )
        if (Result.isFailure(checked)) return yield* new CardValidationError({ issues: checked.failure })
        const digits = Redacted.value(card.cardNumber)
        const stored = yield* repository.insert(
          userId,
          {
            cardholderName: card.cardholderName,
            brand: checked.success,
            firstDigits: storedPrefix(digits),
            last4: lastFour(digits),
            fingerprint: yield* fingerprinter.fingerprint(card.cardNumber),
            expiryMonth: card.expiryMonth,
            expiryYear: card.expiryYear,
            createdAt: truncateToSeconds(now)
          },
          { maxActiveCards: MAX_ACTIVE_CARDS }
        )
        yield* Effect.logInfo("Card registered").pipe(
          Effect.annotateLogs({ cardId: stored.cardId, brand: stored.brand, last4: stored.last4 })
        )
        return stored
      })

      const list = Effect.fn("CardsService.list")(function* (userId: UserId, page: CardPage) {
        return yield* repository.listByUser(userId, page)
      })

      const remove = Effect.fn("CardsService.remove")(function* (userId: UserId, cardId: CardId) {
        yield* repository.softDelete(userId, cardId)
        yield* Effect.logInfo("Card deleted").pipe(Effect.annotateLogs({ cardId }))
      })

      return CardsService.of({ add, list, remove })
    })
  )
}
