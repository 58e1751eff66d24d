import { CardsService } from "@payments-gaming/domain/cards"
import { Layer, Redacted } from "effect"
import * as CreditCardTypeBrandDetector from "../../packages/adapters/src/cards/CreditCardTypeBrandDetector.ts"
import * as HmacCardFingerprinter from "../../packages/adapters/src/cards/HmacCardFingerprinter.ts"
import * as CardRepositoryPg from "../../packages/adapters/src/postgres/CardRepository.ts"
import { TestDatabase } from "../support/TestDatabase.ts"

export const CardsDatabase = TestDatabase

export const TEST_FINGERPRINT_KEY = Redacted.make("test-card-fingerprint-key-0123456789abcdef")

/** The card service on the real adapters and a fresh database; the SQL client and the repository too. */
export const CardsOnPostgres = CardsService.layer.pipe(
  Layer.provideMerge(CardRepositoryPg.layer),
  Layer.provide(CreditCardTypeBrandDetector.layer),
  Layer.provide(HmacCardFingerprinter.layer(TEST_FINGERPRINT_KEY)),
  Layer.provideMerge(CardsDatabase)
)
