import { type CardBrand, CardBrandDetector, visiblePrefixLength } from "@payments-gaming/domain/cards"
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

// The library's longest range is 8 digits, so a number's brand is decided by its first 8 digits and
// its length. Asking it costs about a tenth of a registration's CPU (it clones every network's data
// on each call), so numbers of 16 digits or more are answered from a cache keyed by exactly what
// their card row keeps anyway (the 8-digit visible prefix, see domain/cards/Mask.ts) and the
// length. A shorter number's row keeps only 4 digits, so its 8 are never kept here either.
const LONGEST_RANGE = 8
const CACHE_LIMIT = 10_000

/**
 * `detectBrand` with a bounded memo for the numbers whose 8-digit prefix is stored anyway. When the
 * memo is full it is emptied: prefixes of real traffic are a few thousand issuer ranges, so this is
 * rare, and it keeps the bound without an LRU's bookkeeping on every call.
 */
export const makeCachedDetector = (limit = CACHE_LIMIT, detect: typeof detectBrand = detectBrand) => {
  const known = new Map<string, Option.Option<CardBrand>>()
  return (digits: string): Option.Option<CardBrand> => {
    if (visiblePrefixLength(digits.length) < LONGEST_RANGE) return detect(digits)
    const key = `${digits.length}:${digits.slice(0, LONGEST_RANGE)}`
    let brand = known.get(key)
    if (brand === undefined) {
      brand = detect(digits)
      if (known.size >= limit) known.clear()
      known.set(key, brand)
    }
    return brand
  }
}

/** The `CardBrandDetector` backed by `credit-card-type`, with the Verve override and the memo above. */
export const layer: Layer.Layer<CardBrandDetector> = Layer.sync(CardBrandDetector, () => {
  const detect = makeCachedDetector()
  return CardBrandDetector.of({ detect: (cardNumber) => Effect.sync(() => detect(Redacted.value(cardNumber))) })
})
