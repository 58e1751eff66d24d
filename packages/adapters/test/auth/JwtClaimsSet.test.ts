import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Jose from "jose"
import { make } from "../../src/auth/JwtVerifier.ts"
import { hmacKey, nowSeconds, SECRET, type SettingsInput, settingsOf } from "../support/JwtFixtures.ts"

// The HS256 path checks the registered claims itself (JwtClaimsSet.ts), where jose's jwtVerify did
// before. Each case runs through both with the same options and must get the same answer.

const signRaw = (claims: Record<string, unknown>) =>
  Effect.promise(() =>
    new Jose.CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .sign(hmacKey(SECRET))
  )

const ours = (input: SettingsInput, token: string) =>
  Effect.flatMap(make(settingsOf(input)), (verifier) => verifier.verify(Redacted.make(token))).pipe(
    Effect.match({ onFailure: (error) => error.reason, onSuccess: () => "accepted" })
  )

const jose = (input: SettingsInput, token: string) =>
  Effect.promise(() =>
    Jose.jwtVerify(token, hmacKey(SECRET), {
      algorithms: ["HS256"],
      clockTolerance: 30,
      requiredClaims: ["exp", "sub"],
      ...(input.issuer === undefined ? {} : { issuer: input.issuer }),
      ...(input.audience === undefined ? {} : { audience: input.audience })
    }).then(
      () => "accepted",
      (error: unknown) =>
        error instanceof Jose.errors.JWTExpired
          ? "token expired"
          : error instanceof Jose.errors.JWTClaimValidationFailed
            ? `claim ${error.claim} ${error.reason}`
            : String(error)
    )
  )

const expectClaims = (input: SettingsInput, cases: ReadonlyArray<[string, Record<string, unknown>]>) =>
  Effect.gen(function* () {
    for (const [expected, claims] of cases) {
      const token = yield* signRaw(claims)
      assert.strictEqual(yield* ours(input, token), expected, JSON.stringify(claims))
      assert.strictEqual(yield* jose(input, token), expected, `jose: ${JSON.stringify(claims)}`)
    }
  })

describe("registered claims on the HS256 path, as jose checks them", () => {
  it.effect("exp, sub required; iat, nbf, exp must be numbers; nbf and exp with 30 s of skew", () =>
    Effect.gen(function* () {
      const now = nowSeconds()
      const exp = now + 3600
      yield* expectClaims({ secret: SECRET }, [
        ["accepted", { sub: "u", exp, iat: now, nbf: now }],
        ["claim sub missing", { exp }],
        ["claim sub missing", {}],
        ["claim exp missing", { sub: "u" }],
        ["claim exp invalid", { sub: "u", exp: null }],
        ["claim exp invalid", { sub: "u", exp: String(exp) }],
        ["claim iat invalid", { sub: "u", exp, iat: "now" }],
        ["claim nbf invalid", { sub: "u", exp, nbf: [now] }],
        ["claim nbf check_failed", { sub: "u", exp, nbf: now + 60 }],
        ["accepted", { sub: "u", exp, nbf: now + 20 }],
        ["token expired", { sub: "u", exp: now - 30 }],
        ["accepted", { sub: "u", exp: now - 28 }]
      ])
    })
  )

  it.effect("a configured issuer and audience are required and must match", () =>
    Effect.gen(function* () {
      const exp = nowSeconds() + 3600
      yield* expectClaims({ secret: SECRET, issuer: "https://issuer.test", audience: "svc" }, [
        ["accepted", { sub: "u", exp, iss: "https://issuer.test", aud: "svc" }],
        ["accepted", { sub: "u", exp, iss: "https://issuer.test", aud: ["other", "svc"] }],
        ["claim iss missing", { exp, aud: "svc" }],
        ["claim aud missing", { sub: "u", exp, iss: "https://issuer.test" }],
        ["claim iss check_failed", { sub: "u", exp, iss: ["https://issuer.test"], aud: "svc" }],
        ["claim aud check_failed", { sub: "u", exp, iss: "https://issuer.test", aud: ["other"] }],
        ["claim aud check_failed", { sub: "u", exp, iss: "https://issuer.test", aud: { svc: true } }]
      ])
    })
  )
})
