import { InvalidToken, Principal } from "@payments-gaming/domain/auth"
import { Result, Schema } from "effect"

// What both verifiers (HS256 in JwtVerifier.ts, a JWKS in JwksVerifier.ts) check once a token's
// signature and registered claims have passed, and the rules they share.

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
export const ASYMMETRIC_ALGORITHMS = ["RS256", "ES256", "EdDSA"]
export const CLOCK_TOLERANCE_SECONDS = 30

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
export const principalOf = (
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

/** A refused token, with why. */
export const refusal = (reason: string) => new InvalidToken({ reason })
