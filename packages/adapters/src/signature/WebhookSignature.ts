import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto"
import { InvalidSignature, WebhookVerifier } from "@payments-gaming/domain/banking"
import { Config, ConfigProvider, Effect, Layer, Redacted } from "effect"

/** Lowercase hex HMAC-SHA256 of the exact bytes: what the provider sends in `X-Provider-Signature`. */
export const sign = (secret: string | Redacted.Redacted<string>, bytes: Uint8Array | string): string =>
  createHmac("sha256", typeof secret === "string" ? secret : Redacted.value(secret))
    .update(bytes)
    .digest("hex")

const hexDigest = /^[0-9a-fA-F]{64}$/

/**
 * The secrets as HMAC keys, imported once: `createHmac` given a string re-encodes it on every call.
 * A KeyObject keeps the secret out of logs and inspection as `Redacted` does.
 */
export const hmacKeys = (secrets: ReadonlyArray<Redacted.Redacted<string>>): ReadonlyArray<KeyObject> =>
  secrets.map((secret) => createSecretKey(Buffer.from(Redacted.value(secret), "utf8")))

/**
 * True when `signature` is the HMAC of `rawBody` under any of `keys`. Hex of either case; any other
 * shape (missing, truncated, not hex, surrounding junk) is simply false. Each candidate is compared
 * with `timingSafeEqual` on two 32-byte buffers, and every key is tried, so timing reveals neither
 * how much of a guess was right nor which secret matched.
 */
export const verifySignature = (
  keys: ReadonlyArray<KeyObject>,
  rawBody: Uint8Array,
  signature: string | undefined
): boolean => {
  if (signature === undefined) return false
  const candidate = signature.trim()
  if (!hexDigest.test(candidate)) return false
  const given = Buffer.from(candidate, "hex")
  let matched = false
  for (const key of keys) {
    const expected = createHmac("sha256", key).update(rawBody).digest()
    if (timingSafeEqual(expected, given)) matched = true
  }
  return matched
}

/** A verifier accepting any of `secrets`: the current one and, during rotation, the previous ones. */
export const layer = (secrets: ReadonlyArray<Redacted.Redacted<string>>) =>
  Layer.sync(WebhookVerifier, () => {
    const keys = hmacKeys(secrets)
    return WebhookVerifier.of({
      verify: Effect.fnUntraced(function* (rawBody: Uint8Array, signature: string | undefined) {
        if (!verifySignature(keys, rawBody, signature)) {
          return yield* new InvalidSignature({ message: "Invalid signature" })
        }
      })
    })
  })

/** Splits `WEBHOOK_SECRETS` ("new,old") into separate secrets, never exposing them outside `Redacted`. */
export const parseSecrets = (value: Redacted.Redacted<string>): ReadonlyArray<Redacted.Redacted<string>> =>
  Redacted.value(value)
    .split(",")
    .map((secret) => secret.trim())
    .filter((secret) => secret.length > 0)
    .map((secret) => Redacted.make(secret))

/** Reads `WEBHOOK_SECRETS` (comma-separated). Fails at start when it holds no secret at all. */
export const layerConfig = Layer.unwrap(
  Effect.gen(function* () {
    const secrets = yield* Config.Redacted("WEBHOOK_SECRETS").pipe(
      Config.mapEffect((value) => {
        const parsed = parseSecrets(value)
        return parsed.length > 0
          ? Effect.succeed(parsed)
          : Effect.fail(
              new Config.ConfigError(
                new ConfigProvider.SourceError({
                  message: "WEBHOOK_SECRETS holds no secret (expected a comma-separated list)"
                })
              )
            )
      })
    )
    return layer(secrets)
  })
)
