import { createHmac } from "node:crypto"
import { type CardFingerprint, CardFingerprinter } from "@payments-gaming/domain/cards"
import { Config, Effect, Layer, Redacted, Schema } from "effect"
import { MIN_SECRET_BYTES } from "../auth/JwtConfig.ts"

/**
 * Shorter keys are refused: the key is all that stands between a fingerprint and a brute force.
 * Counted in UTF-8 bytes (the bytes HMAC is keyed with), like every secret of the service.
 */
export const MIN_KEY_LENGTH = MIN_SECRET_BYTES

/**
 * Fingerprints card numbers with HMAC-SHA256 under `key` (its UTF-8 bytes), as lowercase hex.
 * Changing the key changes every fingerprint, so duplicates of cards registered under the old key
 * are no longer found: rotating it means re-fingerprinting, which needs the numbers we never keep.
 */
export const make = (key: Redacted.Redacted<string>): CardFingerprinter["Service"] =>
  CardFingerprinter.of({
    fingerprint: (cardNumber) =>
      Effect.sync(
        () =>
          createHmac("sha256", Redacted.value(key))
            .update(Redacted.value(cardNumber), "utf8")
            .digest("hex") as CardFingerprint
      )
  })

export const layer = (key: Redacted.Redacted<string>): Layer.Layer<CardFingerprinter> =>
  Layer.succeed(CardFingerprinter, make(key))

const FingerprintKey = Schema.Redacted(
  Schema.String.check(
    Schema.makeFilter(
      (value) =>
        Buffer.byteLength(value, "utf8") >= MIN_KEY_LENGTH ||
        `CARD_FINGERPRINT_KEY must be at least ${MIN_KEY_LENGTH} bytes long`
    )
  )
)

/** Reads the key from `CARD_FINGERPRINT_KEY` (at least {@link MIN_KEY_LENGTH} UTF-8 bytes). */
export const layerConfig: Layer.Layer<CardFingerprinter, Config.ConfigError> = Layer.effect(
  CardFingerprinter,
  Effect.gen(function* () {
    return make(yield* Config.schema(FingerprintKey, "CARD_FINGERPRINT_KEY"))
  })
)
