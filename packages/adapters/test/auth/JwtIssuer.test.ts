import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Jose from "jose"
import { mint } from "../../src/auth/JwtIssuer.ts"
import { make } from "../../src/auth/JwtVerifier.ts"
import { nowSeconds, SECRET, type SettingsInput, settingsOf } from "../support/JwtFixtures.ts"

const verify = (input: SettingsInput, token: string) =>
  Effect.flatMap(make(settingsOf(input)), (verifier) => verifier.verify(Redacted.make(token)))

describe("JwtIssuer", () => {
  it.effect("a minted token verifies with the same settings and carries sub, roles and exp", () =>
    Effect.gen(function* () {
      const settings = settingsOf({ secret: SECRET })
      const token = yield* mint(settings, { sub: "ops-1", roles: ["admin"], ttlSeconds: 900 })
      const principal = yield* verify({ secret: SECRET }, token)
      assert.strictEqual(principal.userId, "ops-1")
      assert.deepStrictEqual(principal.roles, ["admin"])
      assert.isTrue(principal.isAdmin)

      const header = Jose.decodeProtectedHeader(token)
      assert.strictEqual(header.alg, "HS256")
      const claims = Jose.decodeJwt(token)
      assert.strictEqual(claims.sub, "ops-1")
      assert.deepStrictEqual(claims.roles, ["admin"])
      assert.approximately(claims.exp ?? 0, nowSeconds() + 900, 5)
      assert.isUndefined(claims.iss)
      assert.isUndefined(claims.aud)
    })
  )

  it.effect("a token without roles carries an empty roles array", () =>
    Effect.gen(function* () {
      const token = yield* mint(settingsOf({ secret: SECRET }), { sub: "u", roles: [], ttlSeconds: 60 })
      assert.deepStrictEqual(Jose.decodeJwt(token).roles, [])
      assert.isFalse((yield* verify({ secret: SECRET }, token)).isAdmin)
    })
  )

  it.effect("iss and aud are set when configured, and the verifier with the same settings accepts them", () =>
    Effect.gen(function* () {
      const input = { secret: SECRET, issuer: "https://issuer.test", audience: "payments-gaming" }
      const token = yield* mint(settingsOf(input), { sub: "u", roles: [], ttlSeconds: 60 })
      const claims = Jose.decodeJwt(token)
      assert.strictEqual(claims.iss, "https://issuer.test")
      assert.strictEqual(claims.aud, "payments-gaming")
      assert.strictEqual((yield* verify(input, token)).userId, "u")
      // And a verifier expecting another issuer refuses it: the claim is really checked.
      const error = yield* verify({ ...input, issuer: "https://other.test" }, token).pipe(Effect.flip)
      assert.strictEqual(error._tag, "InvalidToken")
    })
  )

  it.effect("with a JWKS URL configured minting is refused", () =>
    Effect.gen(function* () {
      const settings = settingsOf({ secret: SECRET, jwksUrl: new URL("http://127.0.0.1:1/jwks.json") })
      const error = yield* mint(settings, { sub: "u", roles: [], ttlSeconds: 60 }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "CannotMintToken")
      assert.include(error.message, "AUTH_JWKS_URL")
    })
  )

  it.effect("without a secret minting is refused", () =>
    Effect.gen(function* () {
      const error = yield* mint(settingsOf({}), { sub: "u", roles: [], ttlSeconds: 60 }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "CannotMintToken")
    })
  )
})
