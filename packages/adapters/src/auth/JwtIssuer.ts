import { Effect, Option, Redacted, Schema } from "effect"
import * as Jose from "jose"
import type { JwtSettings } from "./JwtConfig.ts"

export class CannotMintToken extends Schema.TaggedError<CannotMintToken>()("CannotMintToken", {
  message: Schema.String
}) {}

export interface MintRequest {
  readonly sub: string
  readonly roles: ReadonlyArray<string>
  readonly ttlSeconds: number
}

/**
 * Mints an HS256 bearer token with the service's own secret, for operators and local development.
 * Tokens of a JWKS-configured deployment come from its identity provider, never from here.
 */
export const mint = (settings: JwtSettings, request: MintRequest) =>
  Effect.gen(function* () {
    if (Option.isSome(settings.jwksUrl)) {
      return yield* new CannotMintToken({
        message: "AUTH_JWKS_URL is set: tokens come from that identity provider, not from this CLI"
      })
    }
    const secret = yield* Option.match(settings.secret, {
      onNone: () => Effect.fail(new CannotMintToken({ message: "AUTH_JWT_SECRET is not configured" })),
      onSome: Effect.succeed
    })
    // One clock reading for both claims: read twice, a second boundary between them would make
    // `exp - iat` one more than asked, and a token minted at exactly AUTH_MAX_TOKEN_TTL be refused.
    const now = Math.floor(Date.now() / 1000)
    let builder = new Jose.SignJWT({ roles: [...request.roles] })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(request.sub)
      .setIssuedAt(now)
      .setExpirationTime(now + request.ttlSeconds)
    builder = Option.match(settings.issuer, { onNone: () => builder, onSome: (iss) => builder.setIssuer(iss) })
    builder = Option.match(settings.audience, { onNone: () => builder, onSome: (aud) => builder.setAudience(aud) })
    return yield* Effect.promise(() => builder.sign(new TextEncoder().encode(Redacted.value(secret))))
  })
