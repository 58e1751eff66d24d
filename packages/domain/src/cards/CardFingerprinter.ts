import { Context, type Effect } from "effect"
import type { CardFingerprint, CardNumber } from "./Model.ts"

/**
 * Derives a card number's keyed fingerprint (HMAC-SHA256 under a secret key kept outside the
 * database). The same number always gives the same fingerprint, which is how a duplicate is found
 * without storing the number; without the key, a fingerprint cannot be turned back into a number,
 * not even by trying every number that matches a stored prefix and last four.
 */
export class CardFingerprinter extends Context.Service<
  CardFingerprinter,
  {
    readonly fingerprint: (cardNumber: CardNumber) => Effect.Effect<CardFingerprint>
  }
>()("@payments-gaming/domain/cards/CardFingerprinter") {}
