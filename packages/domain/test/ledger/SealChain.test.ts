import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { SealChain, type SealSegment, verify } from "@payments-gaming/domain/ledger"
import { Effect, Stream } from "effect"
import { Digest } from "effect/crypto"
import * as fc from "fast-check"

const { encodeTransaction, GENESIS_HASH, sealHash, sha256Hex, toHex } = SealChain

/** The worked example of docs/ledger-seals.md. */
const example: SealChain.SealableTransaction = {
  id: 1n,
  key: "virtualaccount.credit:REF-1001",
  kind: "deposit",
  createdAt: "2026-11-21T18:30:12.123456Z",
  postings: [
    { id: 2n, account: "user:user-1:cash:NGN", currency: "NGN", amountMinor: 495050n },
    { id: 1n, account: "system:provider-settlement:NGN", currency: "NGN", amountMinor: -495050n }
  ]
}

/** The encoding written the plainest way, from the doc's words: what an auditor would write. */
const reference = (transaction: SealChain.SealableTransaction): Uint8Array => {
  const bytes: Array<number> = []
  const u32 = (n: number) => bytes.push((n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255)
  const str = (s: string) => {
    const utf8 = Buffer.from(s, "utf8")
    u32(utf8.length)
    bytes.push(...utf8)
  }
  str(String(transaction.id))
  str(transaction.key)
  str(transaction.kind)
  str(transaction.createdAt)
  const postings = [...transaction.postings].sort((a, b) => (a.id < b.id ? -1 : 1))
  u32(postings.length)
  for (const p of postings) {
    str(String(p.id))
    str(p.account)
    str(p.currency)
    str(String(p.amountMinor))
  }
  return Uint8Array.from(bytes)
}

const doc = readFileSync(join(import.meta.dirname, "../../../../docs/ledger-seals.md"), "utf8")
/** The value the doc gives after `label`: the first run of hex digits in its fenced block. */
const documented = (label: string) => {
  const at = doc.indexOf(label)
  assert.isAtLeast(at, 0, `docs/ledger-seals.md has no "${label}"`)
  const block = doc.slice(at).split("```")[1] ?? ""
  return block.replace(/[^0-9a-f]/g, "")
}

const run = <A>(effect: Effect.Effect<A, never, Digest.Digest>) =>
  Effect.runPromise(effect.pipe(Effect.provide(Digest.layerWebCrypto)))

describe("the seal chain's canonical encoding", () => {
  it("is the documented bytes, byte for byte, and the documented hash", async () => {
    const bytes = encodeTransaction(example)
    assert.strictEqual(toHex(bytes), documented("encode(t) in hex"))
    const hash = await Effect.runPromise(sealHash(GENESIS_HASH, [bytes]).pipe(Effect.provide(Digest.layerWebCrypto)))
    assert.strictEqual(hash, documented("the seal's hash"))
  })

  it("equals the plainest implementation of the doc for any transaction, Unicode included", () => {
    const posting = fc.record({
      id: fc.bigInt({ min: 1n, max: 2n ** 62n }),
      account: fc.string({ unit: "grapheme", maxLength: 40 }),
      currency: fc.constantFrom("NGN", "USD", "COIN"),
      amountMinor: fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n })
    })
    fc.assert(
      fc.property(
        fc.record({
          id: fc.bigInt({ min: 1n, max: 2n ** 62n }),
          key: fc.string({ unit: "grapheme", minLength: 1, maxLength: 600 }),
          kind: fc.constantFrom("deposit", "prize", "transfer.hold"),
          createdAt: fc.constant("2026-01-01T00:00:00.000000Z"),
          postings: fc.uniqueArray(posting, { minLength: 0, maxLength: 6, selector: (p) => p.id })
        }),
        (transaction) => {
          assert.deepStrictEqual(encodeTransaction(transaction), reference(transaction))
        }
      )
    )
  })

  it("is unambiguous: moving characters between fields changes the bytes", () => {
    const a = encodeTransaction({ ...example, key: "ab", kind: "c" })
    const b = encodeTransaction({ ...example, key: "a", kind: "bc" })
    assert.notDeepEqual(a, b)
  })
})

describe("verify", () => {
  // What each seal stored for its transactions (ids are unique across seals here).
  const sealed = new Map<bigint, string>()
  const digestsOf = () => Effect.succeed(sealed as ReadonlyMap<bigint, string>)
  const chain = async (transactions: ReadonlyArray<SealChain.SealableTransaction>, per: number) =>
    await run(
      Effect.gen(function* () {
        const segments: Array<SealSegment> = []
        let previous = GENESIS_HASH
        for (let i = 0; i < transactions.length; i += per) {
          const batch = transactions.slice(i, i + per)
          const hash = yield* sealHash(previous, batch.map(encodeTransaction))
          const members = []
          for (const t of batch) {
            members.push({ transactionId: t.id, transaction: t })
            sealed.set(t.id, yield* sha256Hex(encodeTransaction(t)))
          }
          segments.push({
            sequence: segments.length + 1,
            stored: { hash, previousHash: previous, transactions: batch.length },
            members
          })
          previous = hash
        }
        return segments
      })
    )
  const transactions = Array.from({ length: 7 }, (_, i) => ({ ...example, id: BigInt(i + 1), key: `k${i}` }))

  it("holds for an untouched chain and names the seal and transaction changed", async () => {
    const segments = await chain(transactions, 3)
    const ok = await run(verify(Stream.fromIterable(segments), { digestsOf }))
    assert.strictEqual(ok._tag, "Verified")
    if (ok._tag === "Verified") {
      assert.strictEqual(ok.transactions, 7)
      assert.strictEqual(ok.seals, 3)
      assert.strictEqual(ok.head, segments[2]?.stored?.hash)
    }
    const tampered = segments.map((segment) =>
      segment.sequence !== 2
        ? segment
        : {
            ...segment,
            members: segment.members.map((m) =>
              m.transactionId === 5n && m.transaction !== undefined
                ? { ...m, transaction: { ...m.transaction, key: "rewritten" } }
                : m
            )
          }
    )
    const broken = await run(verify(Stream.fromIterable(tampered), { digestsOf }))
    assert.deepInclude(broken, { _tag: "Broken", sequence: 2, transactionId: 5n })
  })

  it("finds a missing seal, a rewritten seal and a head that is not in the chain", async () => {
    const segments = await chain(transactions, 2)
    const gap = await run(verify(Stream.fromIterable(segments.filter((s) => s.sequence !== 2)), { digestsOf }))
    assert.deepInclude(gap, { _tag: "Broken", sequence: 2 })
    const rewritten = segments.map((s) =>
      s.sequence === 3 && s.stored !== undefined ? { ...s, stored: { ...s.stored, hash: "f".repeat(64) } } : s
    )
    assert.deepInclude(await run(verify(Stream.fromIterable(rewritten), { digestsOf })), {
      _tag: "Broken",
      sequence: 3,
      transactionId: undefined
    })
    const published = segments[1]?.stored?.hash
    assert.strictEqual(
      (await run(verify(Stream.fromIterable(segments), { head: published, digestsOf })))._tag,
      "Verified"
    )
    assert.strictEqual(
      (await run(verify(Stream.fromIterable(segments), { head: "a".repeat(64), digestsOf })))._tag,
      "HeadNotFound"
    )
  })
})
