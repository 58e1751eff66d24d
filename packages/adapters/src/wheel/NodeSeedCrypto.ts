import { createHash, createHmac } from "node:crypto"
import { SeedCrypto } from "@payments-gaming/domain/wheel"
import { Effect, Layer } from "effect"

/** `SeedCrypto` on `node:crypto`: SHA-256 commitments and HMAC-SHA256 draws. */
export const make = SeedCrypto.of({
  sha256: (data) => Effect.sync(() => new Uint8Array(createHash("sha256").update(data).digest())),
  hmacSha256: (key, message) =>
    Effect.sync(() => new Uint8Array(createHmac("sha256", key).update(message, "utf8").digest()))
})

export const layer: Layer.Layer<SeedCrypto> = Layer.succeed(SeedCrypto, make)
