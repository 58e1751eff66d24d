import { Context, type Effect, type Option } from "effect"
import type { CardBrand, CardNumber } from "./Model.ts"

/**
 * Names the network that issued a card number, from its leading digits and its length. None when
 * the number is not one a supported network issues (unknown range, or a length the network does
 * not use).
 */
export class CardBrandDetector extends Context.Service<
  CardBrandDetector,
  {
    readonly detect: (cardNumber: CardNumber) => Effect.Effect<Option.Option<CardBrand>>
  }
>()("@payments-gaming/domain/cards/CardBrandDetector") {}
