import { createCipheriv, createDecipheriv, createHmac, timingSafeEqual } from "node:crypto"
import { StatementIds } from "@payments-gaming/domain/ledger"
import { Config, Effect, Layer, Redacted } from "effect"

const MAX_POSTING_ID = 2n ** 63n - 1n
const SEALED = /^[A-Za-z0-9_-]{22}$/

/**
 * `StatementIds` by encryption (issue 34). A posting id (8 bytes) and a tag of the user (the first 8
 * bytes of an HMAC of their id) make one 16-byte block, encrypted with AES-256 as a single block (a
 * keyed permutation: the same id gives the same text, and the text says nothing of the id), written
 * as 22 characters of base64url. Opening decrypts and checks the tag in constant time, so another
 * user's id, or any forged text, opens to nothing (a chance of 2^-64 per guess).
 *
 * The two keys are derived from `secret` (HMAC-SHA256 of a label each), so this needs no secret of
 * its own: `layerConfig` uses `CARD_FINGERPRINT_KEY`, which every start has (generated in development,
 * at least 32 bytes in production). Changing that key changes every statement id and cursor: a
 * cursor from before is refused (400), and ids a client kept no longer match (docs/security.md).
 */
export const make = (secret: Redacted.Redacted<string>): StatementIds["Service"] => {
  const derive = (label: string) => createHmac("sha256", Redacted.value(secret)).update(label).digest()
  const cipherKey = derive("payments-gaming statement ids: cipher")
  const tagKey = derive("payments-gaming statement ids: user tag")
  return StatementIds.of({
    forUser: (userId) =>
      Effect.sync(() => {
        const tag = createHmac("sha256", tagKey).update(userId, "utf8").digest().subarray(0, 8)
        return {
          seal: (postingId) => {
            const block = Buffer.alloc(16)
            block.writeBigUInt64BE(postingId, 0)
            tag.copy(block, 8)
            const cipher = createCipheriv("aes-256-ecb", cipherKey, null).setAutoPadding(false)
            return Buffer.concat([cipher.update(block), cipher.final()]).toString("base64url")
          },
          open: (text) => {
            if (!SEALED.test(text)) return undefined
            const sealed = Buffer.from(text, "base64url")
            // 22 characters carry 132 bits for a 128-bit block: the decoder ignores the last 4, so
            // only the one spelling the cipher wrote is accepted, not 16 that open alike.
            if (sealed.toString("base64url") !== text) return undefined
            if (sealed.length !== 16) return undefined
            const decipher = createDecipheriv("aes-256-ecb", cipherKey, null).setAutoPadding(false)
            const block = Buffer.concat([decipher.update(sealed), decipher.final()])
            if (!timingSafeEqual(block.subarray(8), tag)) return undefined
            const postingId = block.readBigUInt64BE(0)
            return postingId >= 1n && postingId <= MAX_POSTING_ID ? postingId : undefined
          }
        }
      })
  })
}

export const layer = (secret: Redacted.Redacted<string>): Layer.Layer<StatementIds> =>
  Layer.succeed(StatementIds, make(secret))

/** Keyed from `CARD_FINGERPRINT_KEY` (its length is checked where cards read it). */
export const layerConfig: Layer.Layer<StatementIds, Config.ConfigError> = Layer.effect(
  StatementIds,
  Effect.gen(function* () {
    return make(yield* Config.Redacted("CARD_FINGERPRINT_KEY"))
  })
)
