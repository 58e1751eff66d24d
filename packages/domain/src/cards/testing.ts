import { Effect, Layer, Option, Redacted, Ref } from "effect"
import type { UserId } from "../auth/Model.ts"
import { CardBrandDetector } from "./CardBrandDetector.ts"
import { CardFingerprinter } from "./CardFingerprinter.ts"
import { CardRepository, type CardToStore } from "./CardRepository.ts"
import { CardLimitReached, CardNotFound, DuplicateCard } from "./Errors.ts"
import { maskFromStored } from "./Mask.ts"
import type { Card, CardBrand, CardFingerprint, CardId, CardPage } from "./Model.ts"

/** One network's number ranges, as prefix intervals of equal digit count, and the lengths it issues. */
export interface BrandRule {
  readonly brand: CardBrand
  readonly prefixes: ReadonlyArray<readonly [from: string, to: string]>
  readonly lengths: ReadonlyArray<number>
}

/**
 * A small, fixed table of network ranges for tests, tried in order (Verve's Nigerian ranges before
 * Maestro's and Discover's, which overlap them). The real detector is the `credit-card-type` adapter.
 */
export const BRAND_RULES: ReadonlyArray<BrandRule> = [
  {
    brand: "VERVE",
    prefixes: [
      ["5060", "5061"],
      ["5078", "5079"],
      ["6500", "6500"]
    ],
    lengths: [16, 18, 19]
  },
  {
    brand: "AMEX",
    prefixes: [
      ["34", "34"],
      ["37", "37"]
    ],
    lengths: [15]
  },
  { brand: "VISA", prefixes: [["4", "4"]], lengths: [16, 18, 19] },
  {
    brand: "MASTERCARD",
    prefixes: [
      ["51", "55"],
      ["2221", "2720"]
    ],
    lengths: [16]
  },
  {
    brand: "DISCOVER",
    prefixes: [
      ["6011", "6011"],
      ["644", "649"],
      ["65", "65"]
    ],
    lengths: [16, 19]
  },
  { brand: "JCB", prefixes: [["3528", "3589"]], lengths: [16, 17, 18, 19] },
  {
    brand: "DINERS",
    prefixes: [
      ["300", "305"],
      ["36", "36"],
      ["38", "39"]
    ],
    lengths: [14, 16, 19]
  },
  { brand: "UNIONPAY", prefixes: [["62", "62"]], lengths: [14, 15, 16, 17, 18, 19] },
  {
    brand: "MAESTRO",
    prefixes: [
      ["50", "50"],
      ["56", "59"],
      ["63", "63"],
      ["67", "67"]
    ],
    lengths: [12, 13, 14, 15, 16, 17, 18, 19]
  }
]

const inRange = (digits: string, [from, to]: readonly [string, string]) => {
  const head = digits.slice(0, from.length)
  return head.length === from.length && head >= from && head <= to
}

/**
 * The brand {@link BRAND_RULES} give a number of digits: the first rule whose prefix and length
 * both match, so a 12-digit 5060… number is Maestro, as with the real adapter, whose Verve
 * override applies only at Verve's lengths.
 */
export const detectWithRules = (digits: string): Option.Option<CardBrand> => {
  const rule = BRAND_RULES.find(
    ({ prefixes, lengths }) => lengths.includes(digits.length) && prefixes.some((range) => inRange(digits, range))
  )
  return rule === undefined ? Option.none() : Option.some(rule.brand)
}

export const layerMemoryBrandDetector: Layer.Layer<CardBrandDetector> = Layer.succeed(
  CardBrandDetector,
  CardBrandDetector.of({ detect: (cardNumber) => Effect.succeed(detectWithRules(Redacted.value(cardNumber))) })
)

// FNV-1a (32 bits) under eight seeds gives 64 hex digits: deterministic and not reversible, enough for
// a test double. The real fingerprint is an HMAC-SHA256 under a secret key.
const fnv1a = (text: string, seed: number) => {
  let hash = (0x811c9dc5 ^ seed) >>> 0
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, "0")
}

export const memoryFingerprint = (digits: string): CardFingerprint =>
  [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => fnv1a(digits, seed * 0x9e3779b1)).join("") as CardFingerprint

export const layerMemoryFingerprinter: Layer.Layer<CardFingerprinter> = Layer.succeed(
  CardFingerprinter,
  CardFingerprinter.of({ fingerprint: (cardNumber) => Effect.succeed(memoryFingerprint(Redacted.value(cardNumber))) })
)

interface StoredCard {
  readonly userId: UserId
  readonly card: Card
  readonly fingerprint: CardFingerprint
  readonly deleted: boolean
}

interface Store {
  readonly issued: number
  readonly rows: ReadonlyArray<StoredCard>
}

const cardIdOf = (sequence: number) => `00000000-0000-4000-8000-${sequence.toString(16).padStart(12, "0")}` as CardId

/** An in-memory `CardRepository` with the same uniqueness and limit rules as the SQL one. */
export const makeMemoryRepository: Effect.Effect<CardRepository["Service"]> = Effect.gen(function* () {
  const store = yield* Ref.make<Store>({ issued: 0, rows: [] })
  const activeOf = (rows: ReadonlyArray<StoredCard>, userId: UserId) =>
    rows.filter((row) => row.userId === userId && !row.deleted)

  const insert = (userId: UserId, card: CardToStore, options: { readonly maxActiveCards: number }) =>
    Effect.flatten(
      Ref.modify(store, (current): readonly [Effect.Effect<Card, DuplicateCard | CardLimitReached>, Store] => {
        const active = activeOf(current.rows, userId)
        if (active.some((row) => row.fingerprint === card.fingerprint)) {
          return [Effect.fail(new DuplicateCard()), current]
        }
        if (active.length >= options.maxActiveCards) {
          return [Effect.fail(new CardLimitReached({ limit: options.maxActiveCards })), current]
        }
        const stored: Card = {
          cardId: cardIdOf(current.issued + 1),
          cardholderName: card.cardholderName,
          brand: card.brand,
          last4: card.last4,
          maskedNumber: maskFromStored(card.firstDigits, card.last4),
          expiryMonth: card.expiryMonth,
          expiryYear: card.expiryYear,
          createdAt: card.createdAt
        }
        const row: StoredCard = { userId, card: stored, fingerprint: card.fingerprint, deleted: false }
        return [Effect.succeed(stored), { issued: current.issued + 1, rows: [...current.rows, row] }]
      })
    )

  const countActive = (userId: UserId) => Effect.map(Ref.get(store), ({ rows }) => activeOf(rows, userId).length)

  const listByUser = (userId: UserId, { limit, offset }: CardPage) =>
    Effect.map(Ref.get(store), ({ rows }) =>
      activeOf(rows, userId)
        .map((row) => row.card)
        .slice(offset, offset + limit)
    )

  const softDelete = (userId: UserId, cardId: CardId) =>
    Effect.flatten(
      Ref.modify(store, (current): readonly [Effect.Effect<void, CardNotFound>, Store] => {
        const index = current.rows.findIndex(
          (row) => row.userId === userId && row.card.cardId === cardId && !row.deleted
        )
        const found = current.rows[index]
        if (found === undefined) return [Effect.fail(new CardNotFound({ cardId })), current]
        const rows = current.rows.with(index, { ...found, deleted: true })
        return [Effect.void, { ...current, rows }]
      })
    )

  return CardRepository.of({ insert, countActive, listByUser, softDelete })
})

/** A fresh, empty in-memory `CardRepository` per build. */
export const layerMemoryRepository: Layer.Layer<CardRepository> = Layer.effect(CardRepository, makeMemoryRepository)

/** Every port of the cards area in memory. */
export const layerMemory: Layer.Layer<CardRepository | CardBrandDetector | CardFingerprinter> = Layer.mergeAll(
  layerMemoryRepository,
  layerMemoryBrandDetector,
  layerMemoryFingerprinter
)
