import { TestDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import * as Layers from "@payments-gaming/composition/Layers"
import { ConfigProvider, Layer, Redacted } from "effect"

export const CardsDatabase = TestDatabase

export const TEST_FINGERPRINT_KEY = Redacted.make("test-card-fingerprint-key-0123456789abcdef")

/** The card service as the server wires it, on a fresh database; the SQL client and the repository too. */
export const CardsOnPostgres = Layers.Cards.pipe(
  Layer.provideMerge(CardsDatabase),
  Layer.provide(
    ConfigProvider.layer(ConfigProvider.fromUnknown({ CARD_FINGERPRINT_KEY: Redacted.value(TEST_FINGERPRINT_KEY) }))
  )
)
