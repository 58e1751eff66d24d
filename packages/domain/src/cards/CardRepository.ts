import { Context, type DateTime, type Effect } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { CardLimitReached, CardNotFound, DuplicateCard } from "./Errors.ts"
import type { Card, CardBrand, CardFingerprint, CardId, CardPage } from "./Model.ts"

/** Everything kept of a card: no full number, no CVV. */
export interface CardToStore {
  readonly cardholderName: string
  readonly brand: CardBrand
  /** The first 8 digits for numbers of 16 digits or more, else the first 4: what the mask shows (`Mask.ts`). */
  readonly firstDigits: string
  readonly last4: string
  readonly fingerprint: CardFingerprint
  readonly expiryMonth: number
  readonly expiryYear: number
  readonly createdAt: DateTime.Utc
}

/** The cards of each user. A deleted card is kept (soft delete) but no longer counts anywhere. */
export class CardRepository extends Context.Service<
  CardRepository,
  {
    /**
     * Stores a new active card of `userId` and gives it an id. Atomically, however many inserts for
     * the same user run at once: fails `DuplicateCard` when the user already has an active card with
     * this fingerprint, and `CardLimitReached` when they already have `maxActiveCards` active cards.
     */
    readonly insert: (
      userId: UserId,
      card: CardToStore,
      options: { readonly maxActiveCards: number }
    ) => Effect.Effect<Card, DuplicateCard | CardLimitReached>
    readonly countActive: (userId: UserId) => Effect.Effect<number>
    /** The user's active cards, oldest first (ties by id), `page.offset` skipped, at most `page.limit`. */
    readonly listByUser: (userId: UserId, page: CardPage) => Effect.Effect<ReadonlyArray<Card>>
    /** Marks the user's active card deleted; `CardNotFound` for an unknown, deleted or another user's card. */
    readonly softDelete: (userId: UserId, cardId: CardId) => Effect.Effect<void, CardNotFound>
  }
>()("@payments-gaming/domain/cards/CardRepository") {}
