import { TokenVerifier } from "@payments-gaming/domain/auth"
import { Duration, Effect, Option, Redacted } from "effect"
import * as Jose from "jose"
import type { JwtSettings } from "./JwtConfig.ts"
import { ASYMMETRIC_ALGORITHMS, CLOCK_TOLERANCE_SECONDS, principalOf, refusal } from "./JwtPrincipal.ts"

// Loaded only when AUTH_JWKS_URL is set (JwtVerifier.make): jose is some 46 modules a service
// on AUTH_JWT_SECRET never needs at start-up.

const describe = (error: unknown): string => {
  if (error instanceof Jose.errors.JWTExpired) return "token expired"
  if (error instanceof Jose.errors.JWTClaimValidationFailed) return `claim ${error.claim} ${error.reason}`
  if (error instanceof Jose.errors.JOSEAlgNotAllowed) return "algorithm not allowed"
  if (error instanceof Jose.errors.JWSSignatureVerificationFailed) return "bad signature"
  if (error instanceof Jose.errors.JWSInvalid || error instanceof Jose.errors.JWTInvalid) return "malformed token"
  if (error instanceof Jose.errors.JWKSNoMatchingKey) return "no matching key"
  return "token could not be verified"
}

/** Asymmetric tokens from an identity provider's key set, verified by jose (keys fetched and cached). */
export const jwksVerifier = (settings: JwtSettings, jwksUrl: URL) => {
  const keys = Jose.createRemoteJWKSet(jwksUrl)
  const options: Jose.JWTVerifyOptions = {
    algorithms: ASYMMETRIC_ALGORITHMS,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ["exp", "sub"],
    ...Option.match(settings.issuer, { onNone: () => ({}), onSome: (issuer) => ({ issuer }) }),
    ...Option.match(settings.audience, { onNone: () => ({}), onSome: (audience) => ({ audience }) })
  }
  const maxSeconds = Duration.toSeconds(settings.maxTokenTtl)
  return TokenVerifier.of({
    verify: Effect.fnUntraced(function* (token: Redacted.Redacted<string>) {
      const { payload, protectedHeader } = yield* Effect.tryPromise({
        try: () => Jose.jwtVerify(Redacted.value(token), keys, options),
        catch: (error) => refusal(describe(error))
      })
      return yield* Effect.fromResult(principalOf(protectedHeader, payload, maxSeconds, Date.now())).pipe(
        Effect.mapError(refusal)
      )
    })
  })
}
