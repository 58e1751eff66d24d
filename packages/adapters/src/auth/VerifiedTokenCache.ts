import { timingSafeEqual } from "node:crypto"
import type { Principal } from "@payments-gaming/domain/auth"

/**
 * The principals of HS256 tokens already verified, so a client sending the same token again is not
 * verified from scratch (HMAC, two base64url decodes, two JSON parses, the claims schema).
 *
 * Why a hit may skip the checks: it is the very token verified before, byte for byte, under the same
 * key and settings, and of its checks only the time-dependent ones could change: `nbf` and the
 * lifetime rule (`exp` at most AUTH_MAX_TOKEN_TTL from now) only ever get easier to pass as time goes
 * on, and `exp` is checked again on every hit. An entry whose `exp` has passed is dropped and the
 * token verified afresh, which refuses it as expired.
 *
 * Entries are keyed by the signed part of the token (header and payload, which the token's holder
 * can read anyway), and the signature is compared with `timingSafeEqual`: a Map lookup compares its
 * keys with early exit, so a signature must never be part of a key. Any other spelling of a token
 * (another signature, a non-canonical encoding of the same one) misses and is verified in full.
 *
 * At most `capacity` entries; when full it starts again empty. Only tokens whose signature was good
 * are stored, so filling it takes tokens signed with AUTH_JWT_SECRET.
 */
export interface VerifiedTokenCache {
  /** The principal of `token` if it was verified before and `exp` has not yet passed `nowSeconds`. */
  readonly get: (token: string, nowSeconds: number) => Principal | undefined
  /** Remembers a token that has just passed every check, with its `exp`. */
  readonly set: (token: string, principal: Principal, exp: number) => void
}

interface Entry {
  /**
   * A string, not a `Buffer`: a small `Buffer.from` is a view into one of Node's shared 8 KB pool
   * slabs, so every remembered signature kept a whole slab alive until the cache emptied. With a new
   * token per request (the benchmark's spin) that held up to 20 MB of slabs, freed only every
   * 10,000 tokens: about 9 MiB of the service's peak RSS (issue 35, docs/benchmarks.md).
   */
  readonly signature: string
  readonly principal: Principal
  readonly exp: number
}

/** Scratch space for the constant-time comparison, so that a hit allocates no `Buffer`s of its own. */
let given = Buffer.allocUnsafeSlow(64)
let stored = Buffer.allocUnsafeSlow(64)

/**
 * Compares two signatures in time that depends only on their length. utf8, not latin1: latin1 keeps
 * only a character's low byte, so another spelling of the stored signature (U+0141 for "A") would
 * compare equal. The length of a signature is no secret: every stored one is 43 characters.
 */
const sameSignature = (candidate: string, signature: string): boolean => {
  const length = Buffer.byteLength(candidate, "utf8")
  if (length !== Buffer.byteLength(signature, "utf8")) return false
  if (length > given.length) {
    given = Buffer.allocUnsafeSlow(length)
    stored = Buffer.allocUnsafeSlow(length)
  }
  given.write(candidate, 0, "utf8")
  stored.write(signature, 0, "utf8")
  return timingSafeEqual(given.subarray(0, length), stored.subarray(0, length))
}

export const makeVerifiedTokenCache = (capacity: number, clockToleranceSeconds: number): VerifiedTokenCache => {
  const entries = new Map<string, Entry>()
  return {
    get: (token, nowSeconds) => {
      const dot = token.lastIndexOf(".")
      if (dot < 0) return undefined
      const signed = token.slice(0, dot)
      const entry = entries.get(signed)
      if (entry === undefined) return undefined
      // The same rule as a first verification: refused once exp is `tolerance` seconds behind now.
      if (entry.exp <= nowSeconds - clockToleranceSeconds) {
        entries.delete(signed)
        return undefined
      }
      return sameSignature(token.slice(dot + 1), entry.signature) ? entry.principal : undefined
    },
    set: (token, principal, exp) => {
      const dot = token.lastIndexOf(".")
      const signed = token.slice(0, dot)
      // Emptied when full rather than evicting the oldest: `keys().next()` on a Map that is always
      // losing its first entry walks the holes left behind, which made every miss ~9 µs dearer
      // (measured); starting over costs each client one full verification.
      if (entries.size >= capacity) entries.clear()
      entries.set(signed, { signature: token.slice(dot + 1), principal, exp })
    }
  }
}
