import { assert, describe, it } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import { Effect, Redacted } from "effect"
import * as StatementIdCipher from "../../src/ledger/StatementIdCipher.ts"

const KEY = Redacted.make("a statement id key of at least 32 bytes")
const ids = StatementIdCipher.make(KEY)
const forUser = (userId: string, cipher = ids) => Effect.runSync(cipher.forUser(userId as UserId))

describe("StatementIdCipher (issue 34, finding 13)", () => {
  it("seals a posting id into 22 URL-safe characters that say nothing of it, and opens it back", () => {
    const ada = forUser("ada")
    const sealed = [1n, 2n, 3n, 42n, 43n, 2n ** 63n - 1n].map((id) => ({ id, text: ada.seal(id) }))
    for (const { id, text } of sealed) {
      assert.match(text, /^[A-Za-z0-9_-]{22}$/)
      assert.notStrictEqual(text, Buffer.from(id.toString()).toString("base64url"))
      assert.strictEqual(ada.open(text), id)
      // Stable: the same posting is always the same id.
      assert.strictEqual(ada.seal(id), text)
    }
    // Neighbouring postings share nothing visible: no common prefix beyond chance.
    const [one, two] = [sealed[0]!.text, sealed[1]!.text]
    assert.notStrictEqual(one.slice(0, 4), two.slice(0, 4))
    assert.strictEqual(new Set(sealed.map((entry) => entry.text)).size, sealed.length)
  })

  it("opens nothing of another user's, another key's, or forged text", () => {
    const ada = forUser("ada")
    const bola = forUser("bola")
    const text = ada.seal(42n)
    assert.isUndefined(bola.open(text))
    assert.notStrictEqual(bola.seal(42n), text)
    assert.isUndefined(
      forUser("ada", StatementIdCipher.make(Redacted.make("another key, also 32 bytes or more"))).open(text)
    )
    const flipped = Buffer.from(text, "base64url")
    flipped[3] = (flipped[3] ?? 0) ^ 1
    for (const forged of [
      flipped.toString("base64url"),
      "A".repeat(22),
      text.slice(0, 21),
      `${text}A`,
      "",
      "42",
      Buffer.from("42").toString("base64url"),
      "!".repeat(22)
    ]) {
      assert.isUndefined(ada.open(forged), forged)
    }
  })

  it("opens only the one spelling it wrote: the last character's 4 spare bits are not ignored", () => {
    const ada = forUser("ada")
    const text = ada.seal(42n)
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    // The 22nd character holds 2 bits of the block and 4 the decoder drops: 16 texts decode alike.
    const spellings = [...alphabet]
      .map((last) => `${text.slice(0, 21)}${last}`)
      .filter((other) => Buffer.from(other, "base64url").equals(Buffer.from(text, "base64url")))
    assert.lengthOf(spellings, 16)
    assert.deepStrictEqual(
      spellings.filter((other) => ada.open(other) !== undefined),
      [text]
    )
  })
})
