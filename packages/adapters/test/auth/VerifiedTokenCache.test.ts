import { assert, describe, it } from "@effect/vitest"
import { Principal } from "@payments-gaming/domain/auth"
import { Effect, Redacted } from "effect"
import { vi } from "vitest"
import { make } from "../../src/auth/JwtVerifier.ts"
import { makeVerifiedTokenCache } from "../../src/auth/VerifiedTokenCache.ts"
import { hmacKey, SECRET, settingsOf, sign } from "../support/JwtFixtures.ts"

const principal = (userId: string) => new Principal({ userId: userId as Principal["userId"], roles: [] })

/** Runs `body` with Date (only) faked, starting at `start` milliseconds. */
const withFakeDate = <A, E>(start: number, body: Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      vi.useFakeTimers({ toFake: ["Date"] })
      vi.setSystemTime(start)
    }),
    () => body,
    () => Effect.sync(() => vi.useRealTimers())
  )

describe("verified HS256 tokens are remembered, never past exp", () => {
  it.effect("a token verified once is refused when exp is 30 s past, as a fresh one would be", () => {
    const start = Date.UTC(2030, 0, 1)
    const at = (seconds: number) => Effect.sync(() => vi.setSystemTime(start + seconds * 1000))
    return withFakeDate(
      start,
      Effect.gen(function* () {
        const verifier = yield* make(settingsOf({ secret: SECRET }))
        const token = Redacted.make(yield* sign(hmacKey(SECRET), { sub: "user-1", exp: start / 1000 + 60 }))
        assert.strictEqual((yield* verifier.verify(token)).userId, "user-1")
        yield* at(89)
        assert.strictEqual((yield* verifier.verify(token)).userId, "user-1")
        yield* at(90)
        assert.strictEqual((yield* Effect.flip(verifier.verify(token))).reason, "token expired")
        // Still refused after the entry is gone: the fresh verification says the same.
        assert.strictEqual((yield* Effect.flip(verifier.verify(token))).reason, "token expired")
      })
    )
  })

  it.effect("while a token is remembered, its header and payload under another signature are refused", () =>
    Effect.gen(function* () {
      const verifier = yield* make(settingsOf({ secret: SECRET }))
      const token = yield* sign(hmacKey(SECRET), { sub: "user-1", claims: { roles: ["admin"] } })
      assert.isTrue((yield* verifier.verify(Redacted.make(token))).isAdmin)
      const [header, payload, signature = ""] = token.split(".")
      const flipped = Buffer.from(signature, "base64url")
      flipped[0] = (flipped[0] ?? 0) ^ 1
      for (const forged of [flipped.toString("base64url"), "", signature.slice(0, -3), `${signature}AAAA`]) {
        const error = yield* Effect.flip(verifier.verify(Redacted.make(`${header}.${payload}.${forged}`)))
        assert.strictEqual(error.reason, "bad signature", forged)
      }
      assert.isTrue((yield* verifier.verify(Redacted.make(token))).isAdmin)
    })
  )

  it("holds at most its capacity, and matches the exact signature only", () => {
    const cache = makeVerifiedTokenCache(2, 30)
    const exp = 2_000_000_000
    const now = exp - 100
    cache.set("h.a.sig-a", principal("a"), exp)
    cache.set("h.b.sig-b", principal("b"), exp)
    assert.strictEqual(cache.get("h.a.sig-a", now)?.userId, "a")
    assert.strictEqual(cache.get("h.b.sig-b", now)?.userId, "b")
    assert.isUndefined(cache.get("h.a.sig-b", now))
    assert.isUndefined(cache.get("h.a.sig-aa", now))
    // A character whose low byte is "a"'s (U+0161) is another signature, not the same one.
    assert.isUndefined(cache.get("h.a.sig-\u0161", now))
    assert.isUndefined(cache.get("h.a.", now))
    assert.isUndefined(cache.get("no-dot", now))
    cache.set("h.c.sig-c", principal("c"), exp)
    assert.strictEqual(cache.get("h.c.sig-c", now)?.userId, "c")
    assert.isUndefined(cache.get("h.a.sig-a", now))
    assert.isUndefined(cache.get("h.b.sig-b", now))
    assert.isUndefined(cache.get("h.c.sig-c", exp + 30))
    assert.strictEqual(cache.get("h.c.sig-c", exp + 29)?.userId, undefined, "an expired entry is dropped")
  })
})
