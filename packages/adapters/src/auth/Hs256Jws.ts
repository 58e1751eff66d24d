import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto"
import { Redacted, Result } from "effect"

/**
 * A compact JWS (RFC 7515 §7.1) whose HS256 signature is good: its protected header and its payload,
 * each a JSON object, parsed once. Nothing in either has been judged yet beyond what is listed below.
 */
export interface VerifiedJws {
  readonly header: Readonly<Record<string, unknown>>
  readonly payload: Readonly<Record<string, unknown>>
}

/**
 * Why a token is refused. The words are jose's (see `describe` in JwtVerifier.ts), so a caller reads
 * the same 401 whichever path checked the token.
 */
export const MALFORMED = "malformed token"
export const BAD_SIGNATURE = "bad signature"
export const ALGORITHM_NOT_ALLOWED = "algorithm not allowed"
export const UNSUPPORTED_EXTENSION = "token could not be verified"

/** The secret as an HMAC key, made once: `createHmac` given a string would encode it on every call. */
export const hs256Key = (secret: Redacted.Redacted<string>): KeyObject =>
  createSecretKey(Buffer.from(Redacted.value(secret), "utf8"))

// Unpadded base64url only. Node's own base64url decoder skips any character it does not know, so
// the alphabet is checked first; a length of 4n+1 can hold no whole byte and is refused too. (jose
// also lets whitespace and `=` padding through; no issuer sends them, and refusing them is safe.)
const BASE64URL = /^[A-Za-z0-9_-]*$/
const isBase64url = (segment: string) => segment.length % 4 !== 1 && BASE64URL.test(segment)

// As jose: invalid UTF-8 is refused rather than turned into U+FFFD, so the claims read are exactly
// the bytes that were signed.
const utf8 = new TextDecoder("utf-8", { fatal: true })

/** A base64url segment holding a JSON object (never an array, null or a scalar), or undefined. */
const jsonObject = (segment: string): Record<string, unknown> | undefined => {
  if (!isBase64url(segment)) return undefined
  let value: unknown
  try {
    value = JSON.parse(utf8.decode(Buffer.from(segment, "base64url")))
  } catch {
    return undefined
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/**
 * The `crit` rule as jose applies it (RFC 7515 §4.1.11): absent, or a non-empty list of non-empty
 * names, each one this verifier understands and present in the header. The only extension jose
 * understands is `b64` (RFC 7797), which must then be a boolean. Returns the refusal, if any, and
 * whether the payload is declared unencoded (`b64: false`), which a JWT may not be (RFC 7797 §7).
 */
const critProblem = (header: Readonly<Record<string, unknown>>): string | "unencoded" | undefined => {
  const crit = header.crit
  if (crit === undefined) return undefined
  if (!Array.isArray(crit) || crit.length === 0 || crit.some((name) => typeof name !== "string" || name === "")) {
    return MALFORMED
  }
  for (const name of crit) {
    if (name !== "b64") return UNSUPPORTED_EXTENSION
    if (header.b64 === undefined) return MALFORMED
  }
  if (typeof header.b64 !== "boolean") return MALFORMED
  return header.b64 ? undefined : "unencoded"
}

const SIGNATURE_BYTES = 32

/**
 * Verifies a compact JWS signed with HS256 under `key`, synchronously: node:crypto's HMAC takes a
 * microsecond or two, where WebCrypto's `subtle.verify` goes through libuv's thread pool and a
 * promise for every token. The checks and their order are jose's `compactVerify` with
 * `algorithms: ["HS256"]`: three segments; the header a JSON object; `crit` as above; `alg` a
 * non-empty string and exactly `HS256` (so `none`, any other algorithm, and an HS256 token checked
 * against another kind of key are all refused); then the signature, compared in constant time
 * (a signature of the wrong length is simply a bad one); and only then the payload, a JSON object.
 */
export const verifyHs256Jws = (key: KeyObject, token: string): Result.Result<VerifiedJws, string> => {
  const firstDot = token.indexOf(".")
  const secondDot = firstDot < 0 ? -1 : token.indexOf(".", firstDot + 1)
  if (secondDot < 0 || token.indexOf(".", secondDot + 1) >= 0) return Result.fail(MALFORMED)

  const header = jsonObject(token.slice(0, firstDot))
  if (header === undefined) return Result.fail(MALFORMED)
  const crit = critProblem(header)
  if (crit !== undefined && crit !== "unencoded") return Result.fail(crit)
  const alg = header.alg
  if (typeof alg !== "string" || alg === "") return Result.fail(MALFORMED)
  if (alg !== "HS256") return Result.fail(ALGORITHM_NOT_ALLOWED)

  const payloadSegment = token.slice(firstDot + 1, secondDot)
  const signatureSegment = token.slice(secondDot + 1)
  if (!isBase64url(payloadSegment) || !isBase64url(signatureSegment)) return Result.fail(MALFORMED)
  const given = Buffer.from(signatureSegment, "base64url")
  // The signing input is the token up to the second dot, as sent: all ASCII, checked above.
  const expected = createHmac("sha256", key).update(token.slice(0, secondDot), "latin1").digest()
  // timingSafeEqual needs equal lengths; the length of a signature is no secret.
  if (given.length !== SIGNATURE_BYTES || !timingSafeEqual(expected, given)) return Result.fail(BAD_SIGNATURE)
  if (crit === "unencoded") return Result.fail(MALFORMED)

  const payload = jsonObject(payloadSegment)
  if (payload === undefined) return Result.fail(MALFORMED)
  return Result.succeed({ header, payload })
}
