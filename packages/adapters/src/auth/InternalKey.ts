import { createHash, timingSafeEqual } from "node:crypto"
import { InternalKeyVerifier, NotAllowed } from "@payments-gaming/domain/auth"
import { Config, Effect, Layer, Redacted } from "effect"

// Hashing both sides first gives equal-length buffers, so timingSafeEqual can compare them and the
// comparison time says nothing about the expected key, not even its length.
const digest = (value: string) => createHash("sha256").update(value, "utf8").digest()

export const make = (expected: Redacted.Redacted<string>) => {
  const expectedDigest = digest(Redacted.value(expected))
  return InternalKeyVerifier.of({
    verify: (presented) =>
      presented !== undefined && timingSafeEqual(digest(Redacted.value(presented)), expectedDigest)
        ? Effect.void
        : Effect.fail(new NotAllowed({ reason: "missing or wrong X-Internal-Key" }))
  })
}

export const layer = (expected: Redacted.Redacted<string>) => Layer.succeed(InternalKeyVerifier, make(expected))

export const layerConfig = Layer.effect(InternalKeyVerifier, Effect.map(Config.Redacted("INTERNAL_API_KEY"), make))
