import { Option } from "effect"

export interface ClaimsSetRules {
  /** When set, `iss` must equal it. */
  readonly issuer: Option.Option<string>
  /** When set, `aud` must be it or a list holding it (RFC 7519 §4.1.3). */
  readonly audience: Option.Option<string>
  readonly clockToleranceSeconds: number
}

export const TOKEN_EXPIRED = "token expired"

type Claim = "iss" | "aud" | "sub" | "exp" | "iat" | "nbf"
const problem = (claim: Claim, reason: "missing" | "check_failed" | "invalid") => `claim ${claim} ${reason}`

/** A NumericDate claim is a JSON number when present (RFC 7519 §2). */
const isNumericDateOrAbsent = (value: unknown) => value === undefined || typeof value === "number"

/**
 * The registered claims as jose's `jwtVerify` checks them with `requiredClaims: ["exp", "sub"]`, the
 * clock tolerance and the configured issuer and audience, in jose's order and with the reasons
 * JwtVerifier gives for jose's errors: the required claims present (iss, aud, sub, exp), iss and aud
 * equal to what is configured, iat, nbf and exp numbers, nbf not after now and exp not before now by
 * more than the tolerance. `nowSeconds` is whole seconds, as jose counts.
 */
export const claimsSetProblem = (
  claims: Readonly<Record<string, unknown>>,
  rules: ClaimsSetRules,
  nowSeconds: number
): string | undefined => {
  if (Option.isSome(rules.issuer) && !Object.hasOwn(claims, "iss")) return problem("iss", "missing")
  if (Option.isSome(rules.audience) && !Object.hasOwn(claims, "aud")) return problem("aud", "missing")
  if (!Object.hasOwn(claims, "sub")) return problem("sub", "missing")
  if (!Object.hasOwn(claims, "exp")) return problem("exp", "missing")

  if (Option.isSome(rules.issuer) && claims.iss !== rules.issuer.value) return problem("iss", "check_failed")
  if (Option.isSome(rules.audience)) {
    const aud = claims.aud
    const ours = rules.audience.value
    if (!(aud === ours || (Array.isArray(aud) && aud.includes(ours)))) return problem("aud", "check_failed")
  }

  const tolerance = rules.clockToleranceSeconds
  if (!isNumericDateOrAbsent(claims.iat)) return problem("iat", "invalid")
  const nbf = claims.nbf
  if (!isNumericDateOrAbsent(nbf)) return problem("nbf", "invalid")
  if (typeof nbf === "number" && nbf > nowSeconds + tolerance) return problem("nbf", "check_failed")
  const exp = claims.exp
  if (typeof exp !== "number") return problem("exp", "invalid")
  if (exp <= nowSeconds - tolerance) return TOKEN_EXPIRED
  return undefined
}
