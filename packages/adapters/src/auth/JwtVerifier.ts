import { InvalidToken, Principal, TokenVerifier } from "@payments-gaming/domain/auth"
import { Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import * as Jose from "jose"
import { type JwtSettings, jwtSettings } from "./JwtConfig.ts"

/** The claims we rely on; anything else in the token is ignored. */
const Claims = Schema.Struct({
  // No control characters: a user id ends up in SQL text columns and log lines.
  sub: Schema.String.check(
    Schema.isMinLength(1),
    Schema.isMaxLength(128),
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
    Schema.isPattern(/^[^\u0000-\u001f\u007f]+$/)
  ),
  roles: Schema.optional(Schema.Array(Schema.String))
})
const decodeClaims = Schema.decodeUnknownEffect(Claims)

// Each key kind accepts only its own algorithms: an HS256 secret never verifies an RS token and a
// JWKS never verifies an HS token (the classic algorithm-confusion attack), and `none` never passes.
const HMAC_ALGORITHMS = ["HS256"]
const ASYMMETRIC_ALGORITHMS = ["RS256", "ES256", "EdDSA"]
const CLOCK_TOLERANCE_SECONDS = 30

type Key = Jose.CryptoKey | Jose.JWTVerifyGetKey

// RFC 7515 §4.1.9: `typ` is a media type, so it is compared case-insensitively and `application/`
// may be left out. A token without `typ` is accepted (most identity providers omit it); one that
// declares itself something else (`dpop+jwt`, `logout+jwt`, an ID token profile…) is not an access
// token and is refused, so a token minted for another purpose cannot be replayed as a bearer token.
const ACCEPTED_TYPES: ReadonlySet<string> = new Set(["jwt", "at+jwt"])
// jose checks `typ` only when asked for one value, so here it is still whatever the header held.
const isAcceptedType = (typ: unknown) => {
  if (typ === undefined) return true
  if (typeof typ !== "string") return false
  const lower = typ.toLowerCase()
  return ACCEPTED_TYPES.has(lower.startsWith("application/") ? lower.slice("application/".length) : lower)
}

/**
 * Why the token's lifetime is refused, if it is: `exp` more than `maxSeconds` after `iat`, or (with
 * or without `iat`) more than `maxSeconds` after now, the clock tolerance allowed. The second rule
 * also stops an `iat` set in the future from stretching a token's life. jose has already checked
 * that `exp` is present and that both are numbers.
 */
const lifetimeProblem = (payload: Jose.JWTPayload, maxSeconds: number): string | undefined => {
  const exp = payload.exp as number
  if (payload.iat !== undefined && exp - payload.iat > maxSeconds) return "token lifetime exceeds AUTH_MAX_TOKEN_TTL"
  if (exp - Date.now() / 1000 > maxSeconds + CLOCK_TOLERANCE_SECONDS) return "token expiry beyond AUTH_MAX_TOKEN_TTL"
  return undefined
}

const describe = (error: unknown): string => {
  if (error instanceof Jose.errors.JWTExpired) return "token expired"
  if (error instanceof Jose.errors.JWTClaimValidationFailed) return `claim ${error.claim} ${error.reason}`
  if (error instanceof Jose.errors.JOSEAlgNotAllowed) return "algorithm not allowed"
  if (error instanceof Jose.errors.JWSSignatureVerificationFailed) return "bad signature"
  if (error instanceof Jose.errors.JWSInvalid || error instanceof Jose.errors.JWTInvalid) return "malformed token"
  if (error instanceof Jose.errors.JWKSNoMatchingKey) return "no matching key"
  return "token could not be verified"
}

const keyFor = (settings: JwtSettings): Effect.Effect<{ key: Key; algorithms: Array<string> }> => {
  if (Option.isSome(settings.jwksUrl)) {
    return Effect.succeed({ key: Jose.createRemoteJWKSet(settings.jwksUrl.value), algorithms: ASYMMETRIC_ALGORITHMS })
  }
  if (Option.isSome(settings.secret)) {
    // Imported once: given the raw bytes, jose would import them as a key again on every verify.
    const secret = new TextEncoder().encode(Redacted.value(settings.secret.value))
    return Effect.map(
      Effect.promise(() =>
        crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["verify"])
      ),
      (key) => ({ key, algorithms: HMAC_ALGORITHMS })
    )
  }
  return Effect.die(new Error("AUTH_JWT_SECRET or AUTH_JWKS_URL must be configured"))
}

export const make = (settings: JwtSettings) =>
  Effect.gen(function* () {
    const { key, algorithms } = yield* keyFor(settings)
    const options: Jose.JWTVerifyOptions = {
      algorithms,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ["exp", "sub"],
      ...Option.match(settings.issuer, { onNone: () => ({}), onSome: (issuer) => ({ issuer }) }),
      ...Option.match(settings.audience, { onNone: () => ({}), onSome: (audience) => ({ audience }) })
    }

    const maxSeconds = Duration.toSeconds(settings.maxTokenTtl)

    const verify = Effect.fnUntraced(function* (token: Redacted.Redacted<string>) {
      const { payload, protectedHeader } = yield* Effect.tryPromise({
        // jose's overloads differ for a key and a key-set getter; both are accepted at run time.
        try: () => Jose.jwtVerify(Redacted.value(token), key as Jose.CryptoKey, options),
        catch: (error) => new InvalidToken({ reason: describe(error) })
      })
      if (!isAcceptedType(protectedHeader.typ)) {
        return yield* new InvalidToken({ reason: "unexpected typ header" })
      }
      const lifetime = lifetimeProblem(payload, maxSeconds)
      if (lifetime !== undefined) return yield* new InvalidToken({ reason: lifetime })
      const claims = yield* decodeClaims(payload).pipe(
        Effect.mapError(() => new InvalidToken({ reason: "claims sub or roles are invalid" }))
      )
      return new Principal({ userId: claims.sub as Principal["userId"], roles: claims.roles ?? [] })
    })

    return TokenVerifier.of({ verify })
  })

export const layer = (settings: JwtSettings) => Layer.effect(TokenVerifier, make(settings))

export const layerConfig = Layer.effect(TokenVerifier, Effect.flatMap(jwtSettings, make))
