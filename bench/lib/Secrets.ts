import { createHmac } from "node:crypto"
import { sign } from "@payments-gaming/adapters/signature/WebhookSignature"
import * as Jose from "jose"

/** Fixed secrets given to the service and the reference server; a real deployment never sees these. */
export const SECRETS = {
  AUTH_JWT_SECRET: "bench-only-jwt-secret-0123456789abcdef-0123456789",
  INTERNAL_API_KEY: "bench-only-internal-key-0123456789",
  WEBHOOK_SECRETS: "bench-webhook-secret-current-0123456789,bench-webhook-secret-previous-0123456789",
  CARD_FINGERPRINT_KEY: "bench-only-card-fingerprint-key-0123456789"
}

const WEBHOOK_SECRET = SECRETS.WEBHOOK_SECRETS.split(",")[0] as string
const JWT_KEY = new TextEncoder().encode(SECRETS.AUTH_JWT_SECRET)
const TOKEN_TTL_SECONDS = 4 * 3600

/** The provider's `X-Provider-Signature` of the exact body with the current secret: the adapters' own `sign`. */
export const signWebhook = (body: string) => sign(WEBHOOK_SECRET, body)

/** An HS256 bearer token for `sub`, signed with jose as the CLI and the tests do. */
export const mintToken = (sub: string, roles: ReadonlyArray<string> = []) =>
  new Jose.SignJWT({ roles: [...roles] })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + TOKEN_TTL_SECONDS)
    .sign(JWT_KEY)

const base64url = (value: string | Buffer) => Buffer.from(value).toString("base64url")
const HEADER = base64url(JSON.stringify({ alg: "HS256" }))

/**
 * The same token without a promise, for autocannon's synchronous `setupRequest` when a pre-minted
 * pool runs dry: a compact JWS is two base64url segments and an HMAC over them.
 */
export const mintTokenSync = (sub: string) => {
  const now = Math.floor(Date.now() / 1000)
  const payload = base64url(JSON.stringify({ roles: [], sub, iat: now, exp: now + TOKEN_TTL_SECONDS }))
  const signature = createHmac("sha256", JWT_KEY).update(`${HEADER}.${payload}`).digest("base64url")
  return `${HEADER}.${payload}.${signature}`
}

/**
 * Tokens for `subOf(0) … subOf(count - 1)`, minted with jose before a run so signing stays out of
 * the timed path. `at(i)` answers from the pool and mints synchronously past its end (`overflow`
 * counts how often, so a run can say whether the pool was big enough).
 */
export const tokenPool = async (subOf: (index: number) => string, count: number) => {
  const tokens: Array<string> = new Array(count)
  const BATCH = 2_000
  for (let start = 0; start < count; start += BATCH) {
    const end = Math.min(count, start + BATCH)
    const batch = await Promise.all(
      Array.from({ length: end - start }, (_, offset) => mintToken(subOf(start + offset)))
    )
    for (const [offset, token] of batch.entries()) tokens[start + offset] = token
  }
  let overflow = 0
  return {
    at: (index: number) => {
      if (index < count) return tokens[index] as string
      overflow++
      return mintTokenSync(subOf(index))
    },
    overflow: () => overflow
  }
}
