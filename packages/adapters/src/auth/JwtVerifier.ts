import { type Principal, TokenVerifier } from "@payments-gaming/domain/auth"
import { Duration, Effect, Layer, Option, Redacted, Result } from "effect"
import { hs256Key, verifyHs256Jws } from "./Hs256Jws.ts"
import { claimsSetProblem } from "./JwtClaimsSet.ts"
import { type JwtSettings, jwtSettings } from "./JwtConfig.ts"
import { CLOCK_TOLERANCE_SECONDS, principalOf, refusal } from "./JwtPrincipal.ts"
import { makeVerifiedTokenCache } from "./VerifiedTokenCache.ts"

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

export const make = (settings: JwtSettings): Effect.Effect<TokenVerifier["Service"]> => {
  const { jwksUrl, secret } = settings
  if (Option.isSome(jwksUrl)) {
    // jose is loaded only here: see JwksVerifier.ts.
    const url = jwksUrl.value
    return Effect.map(
      Effect.promise(() => import("./JwksVerifier.ts")),
      ({ jwksVerifier }) => jwksVerifier(settings, url)
    )
  }
  if (Option.isSome(secret)) return Effect.sync(() => hs256Verifier(settings, secret.value))
  return Effect.die(new Error("AUTH_JWT_SECRET or AUTH_JWKS_URL must be configured"))
}

export const layer = (settings: JwtSettings) => Layer.effect(TokenVerifier, make(settings))

export const layerConfig = Layer.effect(TokenVerifier, Effect.flatMap(jwtSettings, make))
