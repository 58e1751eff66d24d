import { createHmac } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Jose from "jose"
import { make } from "../../src/auth/JwtVerifier.ts"
import {
  base64url,
  hmacKey,
  jwksServer,
  nowSeconds,
  SECRET,
  type SettingsInput,
  type SignOptions,
  settingsOf,
  sign
} from "../support/JwtFixtures.ts"

const verifyWith = (input: SettingsInput, token: string) =>
  Effect.flatMap(make(settingsOf(input)), (verifier) => verifier.verify(Redacted.make(token)))

/** The verifier's refusal; fails the test if the token was accepted. */
const refusal = (input: SettingsInput, token: string) =>
  verifyWith(input, token).pipe(
    Effect.flip,
    Effect.tap((error) => Effect.sync(() => assert.strictEqual(error._tag, "InvalidToken")))
  )

const hs256 = (options: SignOptions = {}) => sign(hmacKey(SECRET), { sub: "user-1", ...options })

describe("JwtVerifier with an HS256 secret", () => {
  it.effect("a valid token gives the principal with its roles", () =>
    Effect.gen(function* () {
      const admin = yield* verifyWith({ secret: SECRET }, yield* hs256({ claims: { roles: ["admin", "ops"] } }))
      assert.strictEqual(admin.userId, "user-1")
      assert.deepStrictEqual(admin.roles, ["admin", "ops"])
      assert.isTrue(admin.isAdmin)

      const user = yield* verifyWith({ secret: SECRET }, yield* hs256({ sub: "user-2", claims: { roles: ["player"] } }))
      assert.strictEqual(user.userId, "user-2")
      assert.isFalse(user.isAdmin)
    })
  )

  it.effect("a token without roles is a principal with no roles", () =>
    Effect.gen(function* () {
      const principal = yield* verifyWith({ secret: SECRET }, yield* hs256({ claims: {} }))
      assert.deepStrictEqual(principal.roles, [])
      assert.isFalse(principal.isAdmin)
    })
  )

  it.effect("an expiry more than 30 s ago is refused, 10 s ago is within the clock skew", () =>
    Effect.gen(function* () {
      const expired = yield* refusal({ secret: SECRET }, yield* hs256({ exp: nowSeconds() - 45 }))
      assert.strictEqual(expired.reason, "token expired")
      const recent = yield* verifyWith({ secret: SECRET }, yield* hs256({ exp: nowSeconds() - 10 }))
      assert.strictEqual(recent.userId, "user-1")
    })
  )

  it.effect("a token without exp is refused", () =>
    Effect.gen(function* () {
      yield* refusal({ secret: SECRET }, yield* hs256({ exp: null }))
    })
  )

  it.effect("a token without sub is refused", () =>
    Effect.gen(function* () {
      yield* refusal({ secret: SECRET }, yield* sign(hmacKey(SECRET), {}))
    })
  )

  it.effect("alg none is refused, however it is spelled", () =>
    Effect.gen(function* () {
      const payload = base64url({ sub: "user-1", roles: ["admin"], exp: nowSeconds() + 3600 })
      for (const alg of ["none", "None", "NONE"]) {
        yield* refusal({ secret: SECRET }, `${base64url({ alg, typ: "JWT" })}.${payload}.`)
      }
      // The same payload with a real signature passes, so the refusals above are about the algorithm.
      const signed = yield* hs256({ claims: { roles: ["admin"] } })
      assert.isTrue((yield* verifyWith({ secret: SECRET }, signed)).isAdmin)
    })
  )

  it.effect("a token signed with another secret is refused, as is a tampered payload", () =>
    Effect.gen(function* () {
      const other = yield* sign(hmacKey("another-secret-also-at-least-32-bytes"), { sub: "user-1" })
      assert.strictEqual((yield* refusal({ secret: SECRET }, other)).reason, "bad signature")

      const [header, , signature] = (yield* hs256({ claims: { roles: [] } })).split(".")
      const forged = base64url({ sub: "user-1", roles: ["admin"], exp: nowSeconds() + 3600 })
      yield* refusal({ secret: SECRET }, `${header}.${forged}.${signature}`)
    })
  )

  it.effect("malformed strings are refused", () =>
    Effect.gen(function* () {
      for (const token of ["", "abc", "a.b.c", "a.b", "...", "Bearer x.y.z", "\u0000.\u0000.\u0000"]) {
        yield* refusal({ secret: SECRET }, token)
      }
    })
  )

  it.effect("sub must be 1 to 128 characters", () =>
    Effect.gen(function* () {
      yield* refusal({ secret: SECRET }, yield* hs256({ sub: "" }))
      yield* refusal({ secret: SECRET }, yield* hs256({ sub: "u".repeat(129) }))
      const longest = yield* verifyWith({ secret: SECRET }, yield* hs256({ sub: "u".repeat(128) }))
      assert.strictEqual(longest.userId.length, 128)
    })
  )

  it.effect("sub must be a string", () =>
    Effect.gen(function* () {
      const payload = { sub: 42, exp: nowSeconds() + 3600 }
      const token = yield* Effect.promise(() =>
        new Jose.CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
          .setProtectedHeader({ alg: "HS256" })
          .sign(hmacKey(SECRET))
      )
      yield* refusal({ secret: SECRET }, token)
    })
  )

  it.effect("roles must be an array of strings", () =>
    Effect.gen(function* () {
      for (const roles of ["admin", [1], ["admin", null], { 0: "admin" }, [["admin"]]]) {
        yield* refusal({ secret: SECRET }, yield* hs256({ claims: { roles } }))
      }
    })
  )

  it.effect("with an issuer and an audience configured, both must match", () =>
    Effect.gen(function* () {
      const config = { secret: SECRET, issuer: "https://issuer.test", audience: "payments-gaming" }
      const right = yield* hs256({ issuer: "https://issuer.test", audience: "payments-gaming" })
      assert.strictEqual((yield* verifyWith(config, right)).userId, "user-1")
      // An audience array containing ours is accepted too (RFC 7519 §4.1.3).
      const inArray = yield* hs256({ claims: { aud: ["other", "payments-gaming"] }, issuer: "https://issuer.test" })
      assert.strictEqual((yield* verifyWith(config, inArray)).userId, "user-1")

      yield* refusal(config, yield* hs256({ issuer: "https://evil.test", audience: "payments-gaming" }))
      yield* refusal(config, yield* hs256({ issuer: "https://issuer.test", audience: "another-service" }))
      yield* refusal(config, yield* hs256({ audience: "payments-gaming" }))
      yield* refusal(config, yield* hs256({ issuer: "https://issuer.test" }))
    })
  )

  it.effect("without an issuer or audience configured, any or none is accepted", () =>
    Effect.gen(function* () {
      const token = yield* hs256({ issuer: "https://anyone.test", audience: "anything" })
      assert.strictEqual((yield* verifyWith({ secret: SECRET }, token)).userId, "user-1")
    })
  )
})

describe("JwtVerifier: typ header and lifetime (HS256)", () => {
  it.effect("typ JWT or at+jwt in any case, with or without application/, or no typ, is accepted", () =>
    Effect.gen(function* () {
      for (const typ of ["JWT", "jwt", "at+jwt", "AT+JWT", "application/at+jwt", undefined]) {
        const header = typ === undefined ? { alg: "HS256" } : { alg: "HS256", typ }
        const principal = yield* verifyWith({ secret: SECRET }, yield* hs256({ header }))
        assert.strictEqual(principal.userId, "user-1", `typ ${typ}`)
      }
    })
  )

  it.effect("any other typ is refused, though the signature is good", () =>
    Effect.gen(function* () {
      for (const typ of ["dpop+jwt", "logout+jwt", "JWS", "jwt ", "application/json", ""]) {
        const error = yield* refusal({ secret: SECRET }, yield* hs256({ header: { alg: "HS256", typ } }))
        assert.strictEqual(error.reason, "unexpected typ header", `typ ${JSON.stringify(typ)}`)
      }
      // A typ that is not even a string is a refusal too, never a crash.
      for (const typ of [5, null, ["JWT"], { JWT: true }]) {
        const header = base64url({ alg: "HS256", typ })
        const payload = base64url({ sub: "user-1", exp: nowSeconds() + 3600 })
        const signature = createHmac("sha256", SECRET).update(`${header}.${payload}`).digest("base64url")
        const error = yield* refusal({ secret: SECRET }, `${header}.${payload}.${signature}`)
        assert.strictEqual(error.reason, "unexpected typ header", `typ ${JSON.stringify(typ)}`)
      }
    })
  )

  it.effect("exp exactly AUTH_MAX_TOKEN_TTL after iat is accepted, a second more is refused", () =>
    Effect.gen(function* () {
      const iat = nowSeconds()
      const day = 24 * 3600
      assert.strictEqual(
        (yield* verifyWith({ secret: SECRET }, yield* hs256({ iat, exp: iat + day }))).userId,
        "user-1"
      )
      const error = yield* refusal({ secret: SECRET }, yield* hs256({ iat, exp: iat + day + 1 }))
      assert.strictEqual(error.reason, "token lifetime exceeds AUTH_MAX_TOKEN_TTL")
      // An old token's exp may already be near: its whole lifetime still counts.
      yield* refusal({ secret: SECRET }, yield* hs256({ iat: iat - 3 * day, exp: iat + 60 }))
    })
  )

  it.effect("without iat, exp may be at most AUTH_MAX_TOKEN_TTL from now (30 s skew allowed)", () =>
    Effect.gen(function* () {
      const day = 24 * 3600
      const within = yield* hs256({ iat: null, exp: nowSeconds() + day })
      assert.strictEqual((yield* verifyWith({ secret: SECRET }, within)).userId, "user-1")
      const years = yield* refusal({ secret: SECRET }, yield* hs256({ iat: null, exp: nowSeconds() + 5 * 365 * day }))
      assert.strictEqual(years.reason, "token expiry beyond AUTH_MAX_TOKEN_TTL")
      yield* refusal({ secret: SECRET }, yield* hs256({ iat: null, exp: nowSeconds() + day + 120 }))
    })
  )

  it.effect("an iat in the future does not stretch a token's life", () =>
    Effect.gen(function* () {
      const later = nowSeconds() + 30 * 24 * 3600
      const error = yield* refusal({ secret: SECRET }, yield* hs256({ iat: later, exp: later + 3600 }))
      assert.strictEqual(error.reason, "token expiry beyond AUTH_MAX_TOKEN_TTL")
    })
  )

  it.effect("a configured AUTH_MAX_TOKEN_TTL is the limit", () =>
    Effect.gen(function* () {
      const settings: SettingsInput = { secret: SECRET, maxTokenTtl: "15 minutes" }
      const iat = nowSeconds()
      assert.strictEqual((yield* verifyWith(settings, yield* hs256({ iat, exp: iat + 900 }))).userId, "user-1")
      yield* refusal(settings, yield* hs256({ iat, exp: iat + 3600 }))
    })
  )
})

describe("JwtVerifier with a JWKS", () => {
  it.effect("RS256 and ES256 tokens from the key set verify", () =>
    Effect.gen(function* () {
      const jwks = yield* jwksServer
      const rs = yield* sign(jwks.rsa.privateKey, {
        sub: "rs-user",
        claims: { roles: ["admin"] },
        header: { alg: "RS256", kid: "rsa-1" }
      })
      const es = yield* sign(jwks.ec.privateKey, { sub: "es-user", header: { alg: "ES256", kid: "ec-1" } })
      const rsPrincipal = yield* verifyWith({ jwksUrl: jwks.url }, rs)
      assert.strictEqual(rsPrincipal.userId, "rs-user")
      assert.isTrue(rsPrincipal.isAdmin)
      assert.strictEqual((yield* verifyWith({ jwksUrl: jwks.url }, es)).userId, "es-user")
    })
  )

  it.effect("an RS256 token from a key outside the set is refused", () =>
    Effect.gen(function* () {
      const jwks = yield* jwksServer
      const stranger = yield* Effect.promise(() => Jose.generateKeyPair("RS256"))
      yield* refusal(
        { jwksUrl: jwks.url },
        yield* sign(stranger.privateKey, { sub: "u", header: { alg: "RS256", kid: "rsa-1" } })
      )
      yield* refusal({ jwksUrl: jwks.url }, yield* sign(stranger.privateKey, { sub: "u", header: { alg: "RS256" } }))
    })
  )

  it.effect("algorithm confusion: HS256 signed with the RSA public key's PEM is refused", () =>
    Effect.gen(function* () {
      const jwks = yield* jwksServer
      const pem = yield* Effect.promise(() => Jose.exportSPKI(jwks.rsa.publicKey))
      const confused = yield* sign(hmacKey(pem), { sub: "attacker", claims: { roles: ["admin"] } })
      yield* refusal({ jwksUrl: jwks.url }, confused)
      const withKid = yield* sign(hmacKey(pem), {
        sub: "attacker",
        claims: { roles: ["admin"] },
        header: { alg: "HS256", kid: "rsa-1" }
      })
      yield* refusal({ jwksUrl: jwks.url }, withKid)
    })
  )

  it.effect("with an HS256 secret configured, an RS256 token is refused", () =>
    Effect.gen(function* () {
      const jwks = yield* jwksServer
      const rs = yield* sign(jwks.rsa.privateKey, { sub: "rs-user", header: { alg: "RS256", kid: "rsa-1" } })
      const error = yield* refusal({ secret: SECRET }, rs)
      assert.strictEqual(error.reason, "algorithm not allowed")
    })
  )

  it.effect("an expired JWKS token is refused like an HS256 one", () =>
    Effect.gen(function* () {
      const jwks = yield* jwksServer
      const rs = yield* sign(jwks.rsa.privateKey, {
        sub: "rs-user",
        exp: nowSeconds() - 60,
        header: { alg: "RS256", kid: "rsa-1" }
      })
      yield* refusal({ jwksUrl: jwks.url }, rs)
    })
  )
  it.effect("a JWKS token with a foreign typ or too long a lifetime is refused", () =>
    Effect.gen(function* () {
      const jwks = yield* jwksServer
      const rs = (options: SignOptions) =>
        sign(jwks.rsa.privateKey, { sub: "rs-user", header: { alg: "RS256", kid: "rsa-1", typ: "at+jwt" }, ...options })
      assert.strictEqual((yield* verifyWith({ jwksUrl: jwks.url }, yield* rs({}))).userId, "rs-user")
      const typed = yield* refusal(
        { jwksUrl: jwks.url },
        yield* rs({ header: { alg: "RS256", kid: "rsa-1", typ: "dpop+jwt" } })
      )
      assert.strictEqual(typed.reason, "unexpected typ header")
      const iat = nowSeconds()
      const long = yield* refusal({ jwksUrl: jwks.url }, yield* rs({ iat, exp: iat + 365 * 24 * 3600 }))
      assert.strictEqual(long.reason, "token lifetime exceeds AUTH_MAX_TOKEN_TTL")
      const es = yield* sign(jwks.ec.privateKey, {
        sub: "es-user",
        iat: null,
        exp: nowSeconds() + 2 * 3600,
        header: { alg: "ES256", kid: "ec-1" }
      })
      assert.strictEqual((yield* verifyWith({ jwksUrl: jwks.url }, es)).userId, "es-user")
      yield* refusal({ jwksUrl: jwks.url, maxTokenTtl: "1 hour" }, es)
    })
  )
})
