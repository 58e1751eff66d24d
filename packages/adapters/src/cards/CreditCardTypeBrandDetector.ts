import { type CardBrand, CardBrandDetector } from "@payments-gaming/domain/cards"
import creditCardType from "credit-card-type"
import { Effect, Layer, Option, Redacted } from "effect"

// The library's names for the networks we register; any other network it knows (Elo, Mir, Troy,
// Hiper, Hipercard, Naranja) is one we do not accept.
const BRANDS: Readonly<Record<string, CardBrand>> = {
  visa: "VISA",
  mastercard: "MASTERCARD",
  "american-express": "AMEX",
  discover: "DISCOVER",
  jcb: "JCB",
  "diners-club": "DINERS",
  unionpay: "UNIONPAY",
  maestro: "MAESTRO",
  verve: "VERVE"
}

// Nigerian Verve cards are issued across whole 4-digit ranges, of which the library knows only a
// scattered list of 6-digit sub-ranges; the rest it calls Maestro (5060, 5061, 5078, 5079) or
// Discover/Elo (6500). These ranges are Verve's before the library is asked.
const VERVE_PREFIXES = ["5060", "5061", "5078", "5079", "6500"] as const
const VERVE_LENGTHS = creditCardType.getTypeInfo("verve").lengths

/**
 * The network of a full card number: Verve's Nigerian ranges first, then the best match of
 * braintree's `credit-card-type`, accepted only at a length that network issues (the library itself
 * matches prefixes only). None for an unsupported network or length, or an ambiguous number.
 */
export const detectBrand = (digits: string): Option.Option<CardBrand> => {
  if (VERVE_PREFIXES.some((prefix) => digits.startsWith(prefix)) && VERVE_LENGTHS.includes(digits.length)) {
    return Option.some("VERVE")
  }
  const matches = creditCardType(digits)
  const match = matches.length === 1 ? matches[0] : undefined
  if (match === undefined || !match.lengths.includes(digits.length)) return Option.none()
  return Option.fromNullishOr(BRANDS[match.type])
}

/** The `CardBrandDetector` backed by `credit-card-type`, with the Verve override. */
export const layer: Layer.Layer<CardBrandDetector> = Layer.succeed(
  CardBrandDetector,
  CardBrandDetector.of({ detect: (cardNumber) => Effect.sync(() => detectBrand(Redacted.value(cardNumber))) })
)
