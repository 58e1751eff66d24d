import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { assert, describe, it } from "@effect/vitest"
import { Principal } from "@payments-gaming/domain/auth"
import { Effect, Redacted } from "effect"
import { vi } from "vitest"
import { make } from "../../src/auth/JwtVerifier.ts"
import { makeVerifiedTokenCache } from "../../src/auth/VerifiedTokenCache.ts"
import { hmacKey, SECRET, settingsOf, sign } from "../support/JwtFixtures.ts"

/** A full collection, as `--expose-gc` would give, without starting the test process with it. */
const collectGarbage = (): void => {
  setFlagsFromString("--expose-gc")
  const gc = runInNewContext("gc") as () => void
  gc()
  gc()
}

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

  it("remembering a token keeps none of Node's shared Buffer pool alive", () => {
    // A small `Buffer.from` is a view into an 8 KB slab shared with every other small Buffer made
    // around it (a server's request and response bytes): an entry holding one keeps its slab alive.
    const cache = makeVerifiedTokenCache(5_000, 30)
    const exp = 2_000_000_000
    const megabytes = () => process.memoryUsage().arrayBuffers / 1024 / 1024
    collectGarbage()
    const before = megabytes()
    for (let i = 0; i < 4_000; i++) {
      // Another request's bytes between two tokens, so the tokens do not share a slab.
      Buffer.from(`${i}`.padEnd(3_000, "x"), "utf8")
      cache.set(`header.payload-${i}.${`${i}`.padStart(43, "s")}`, principal(`user-${i}`), exp)
    }
    collectGarbage()
    const held = megabytes() - before
    assert.isBelow(held, 2, `${held.toFixed(1)} MB of ArrayBuffers held after remembering 4,000 tokens`)
    assert.strictEqual(cache.get(`header.payload-7.${"7".padStart(43, "s")}`, exp - 100)?.userId, "user-7")
  })
})
