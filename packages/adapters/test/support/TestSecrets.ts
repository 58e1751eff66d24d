import { Effect } from "effect"
import * as Jose from "jose"
import { sign } from "../../src/signature/WebhookSignature.ts"

/**
 * The one set of secrets of the whole test suite: the in-process server, the server and CLI
 * processes, and the configuration tests all use these. Each is at least 32 bytes, so they pass the
 * production checks too; a real deployment never sees them.
 */
export const TEST_SECRETS = {
  AUTH_JWT_SECRET: "test-only-jwt-secret-0123456789abcdef",
  INTERNAL_API_KEY: "test-only-internal-key-0123456789abcdef",
  WEBHOOK_SECRETS: "test-only-webhook-secret-current-0123456789,test-only-webhook-secret-previous-0123456789",
  CARD_FINGERPRINT_KEY: "test-only-card-fingerprint-key-0123456789"
}

const [current, previous] = TEST_SECRETS.WEBHOOK_SECRETS.split(",") as [string, string]
/** The provider's current webhook secret, and the previous one still accepted during a rotation. */
export const CURRENT_WEBHOOK_SECRET = current
export const PREVIOUS_WEBHOOK_SECRET = previous

/** The provider's `X-Provider-Signature` of the exact bytes: the adapters' own `sign`, never a copy of it. */
export const signWebhook = (body: string | Uint8Array, secret: string = CURRENT_WEBHOOK_SECRET) => sign(secret, body)

/** An HS256 bearer token for `sub` with `roles`, signed with `secret` (the suite's, unless given). */
export const tokenFor = (
  sub: string,
  roles: ReadonlyArray<string> = [],
  ttlSeconds = 3600,
  secret: string = TEST_SECRETS.AUTH_JWT_SECRET
) =>
  Effect.promise(() =>
    new Jose.SignJWT({ roles: [...roles] })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
      .sign(new TextEncoder().encode(secret))
  )
