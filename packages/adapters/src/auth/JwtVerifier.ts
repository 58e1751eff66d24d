import { InvalidToken, Principal, TokenVerifier } from "@payments-gaming/domain/auth"
import { Duration, Effect, Layer, Option, Redacted, Result, Schema } from "effect"
import * as Jose from "jose"
import { hs256Key, verifyHs256Jws } from "./Hs256Jws.ts"
import { claimsSetProblem } from "./JwtClaimsSet.ts"
import { type JwtSettings, jwtSettings } from "./JwtConfig.ts"
import { makeVerifiedTokenCache } from "./VerifiedTokenCache.ts"

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
// Synchronous: the claims are already in memory, so there is nothing to wait for.
const decodeClaims = Schema.decodeUnknownResult(Claims)

// Each key kind accepts only its own algorithms: an HS256 secret never verifies an RS token and a
// JWKS never verifies an HS token (the classic algorithm-confusion attack), and `none` never passes.
// The HS256 side is Hs256Jws.ts, which accepts `HS256` alone.
const ASYMMETRIC_ALGORITHMS = ["RS256", "ES256", "EdDSA"]
const CLOCK_TOLERANCE_SECONDS = 30

// RFC 7515 §4.1.9: `typ` is a media type, so it is compared case-insensitively and `application/`
// may be left out. A token without `typ` is accepted (most identity providers omit it); one that
// declares itself something else (`dpop+jwt`, `logout+jwt`, an ID token profile…) is not an access
// token and is refused, so a token minted for another purpose cannot be replayed as a bearer token.
const ACCEPTED_TYPES: ReadonlySet<string> = new Set(["jwt", "at+jwt"])
// Neither path has looked at `typ`, so here it is still whatever the header held.
const isAcceptedType = (typ: unknown) => {
  if (typ === undefined) return true
  if (typeof typ !== "string") return false
  const lower = typ.toLowerCase()
  return ACCEPTED_TYPES.has(lower.startsWith("application/") ? lower.slice("application/".length) : lower)
}

/**
 * Why the token's lifetime is refused, if it is: `exp` more than `maxSeconds` after `iat`, or (with
 * or without `iat`) more than `maxSeconds` after now, the clock tolerance allowed. The second rule
 * also stops an `iat` set in the future from stretching a token's life. The registered claims have
 * already been checked: `exp` is a number, and so is `iat` when present.
 */
const lifetimeProblem = (
  payload: Readonly<Record<string, unknown>>,
  maxSeconds: number,
  nowMillis: number
): string | undefined => {
  const exp = payload.exp as number
  const iat = payload.iat as number | undefined
  if (iat !== undefined && exp - iat > maxSeconds) return "token lifetime exceeds AUTH_MAX_TOKEN_TTL"
  if (exp - nowMillis / 1000 > maxSeconds + CLOCK_TOLERANCE_SECONDS) return "token expiry beyond AUTH_MAX_TOKEN_TTL"
  return undefined
}

/** The checks both key kinds share, once the signature and the registered claims have passed. */
const principalOf = (
  header: Readonly<Record<string, unknown>>,
  payload: Readonly<Record<string, unknown>>,
  maxSeconds: number,
  nowMillis: number
): Result.Result<Principal, string> => {
  if (!isAcceptedType(header.typ)) return Result.fail("unexpected typ header")
  const lifetime = lifetimeProblem(payload, maxSeconds, nowMillis)
  if (lifetime !== undefined) return Result.fail(lifetime)
  const claims = decodeClaims(payload)
  if (Result.isFailure(claims)) return Result.fail("claims sub or roles are invalid")
  return Result.succeed(
    new Principal({ userId: claims.success.sub as Principal["userId"], roles: claims.success.roles ?? [] })
  )
}

const refusal = (reason: string) => new InvalidToken({ reason })

const describe = (error: unknown): string => {
  if (error instanceof Jose.errors.JWTExpired) return "token expired"
  if (error instanceof Jose.errors.JWTClaimValidationFailed) return `claim ${error.claim} ${error.reason}`
  if (error instanceof Jose.errors.JOSEAlgNotAllowed) return "algorithm not allowed"
  if (error instanceof Jose.errors.JWSSignatureVerificationFailed) return "bad signature"
  if (error instanceof Jose.errors.JWSInvalid || error instanceof Jose.errors.JWTInvalid) return "malformed token"
  if (error instanceof Jose.errors.JWKSNoMatchingKey) return "no matching key"
  return "token could not be verified"
}

/** How many verified HS256 tokens are remembered (VerifiedTokenCache.ts): a few MB at most. */
const VERIFIED_TOKENS_CACHED = 10_000

/**
 * HS256 with the service's own secret, checked synchronously (Hs256Jws.ts, JwtClaimsSet.ts): the same
 * rules jose's `jwtVerify` applies, without WebCrypto's thread-pool round trip and promise per token.
 * A token seen before is answered from VerifiedTokenCache.ts, its `exp` checked again.
 * `Effect.suspend` keeps it lazy, so the clock is read when the effect runs, not when it is built.
 */
const hs256Verifier = (settings: JwtSettings, secret: Redacted.Redacted<string>) => {
  const key = hs256Key(secret)
  const rules = { issuer: settings.issuer, audience: settings.audience, clockToleranceSeconds: CLOCK_TOLERANCE_SECONDS }
  const maxSeconds = Duration.toSeconds(settings.maxTokenTtl)
  const verified = makeVerifiedTokenCache(VERIFIED_TOKENS_CACHED, CLOCK_TOLERANCE_SECONDS)
  const check = (token: string): Result.Result<Principal, string> => {
    const nowMillis = Date.now()
    const nowSeconds = Math.floor(nowMillis / 1000)
    const known = verified.get(token, nowSeconds)
    if (known !== undefined) return Result.succeed(known)
    const jws = verifyHs256Jws(key, token)
    if (Result.isFailure(jws)) return Result.fail(jws.failure)
    const { header, payload } = jws.success
    const registered = claimsSetProblem(payload, rules, nowSeconds)
    if (registered !== undefined) return Result.fail(registered)
    const principal = principalOf(header, payload, maxSeconds, nowMillis)
    if (Result.isSuccess(principal)) verified.set(token, principal.success, payload.exp as number)
    return principal
  }
  return TokenVerifier.of({
    verify: (token) => Effect.suspend(() => Effect.fromResult(Result.mapError(check(Redacted.value(token)), refusal)))
  })
}

/** Asymmetric tokens from an identity provider's key set, verified by jose (keys fetched and cached). */
const jwksVerifier = (settings: JwtSettings, jwksUrl: URL) => {
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

export const make = (settings: JwtSettings): Effect.Effect<TokenVerifier["Service"]> => {
  const { jwksUrl, secret } = settings
  if (Option.isSome(jwksUrl)) return Effect.sync(() => jwksVerifier(settings, jwksUrl.value))
  if (Option.isSome(secret)) return Effect.sync(() => hs256Verifier(settings, secret.value))
  return Effect.die(new Error("AUTH_JWT_SECRET or AUTH_JWKS_URL must be configured"))
}

export const layer = (settings: JwtSettings) => Layer.effect(TokenVerifier, make(settings))

export const layerConfig = Layer.effect(TokenVerifier, Effect.flatMap(jwtSettings, make))
