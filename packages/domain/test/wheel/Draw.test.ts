import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import fc from "fast-check"
import { defaultWheel } from "../../src/wheel/DefaultWheel.ts"
import { acceptanceLimit, drawFromBytes, segmentAt, segmentIndexAt, segmentRanges } from "../../src/wheel/Draw.ts"
import { commitmentOf, drawMessage, drawValue, legacyDrawMessage, verify } from "../../src/wheel/ProvablyFair.ts"
import { SeedCrypto } from "../../src/wheel/SeedCrypto.ts"
import { layerWebCryptoSeedCrypto } from "../../src/wheel/testing.ts"

const bytes = (...words: ReadonlyArray<number>) => {
  const out = new Uint8Array(words.length * 4)
  const view = new DataView(out.buffer)
  for (const [index, word] of words.entries()) view.setUint32(index * 4, word)
  return out
}

const hex = (text: string) => Uint8Array.from(text.match(/../g)!.map((pair) => Number.parseInt(pair, 16)))
const toHex = (data: Uint8Array) => [...data].map((b) => b.toString(16).padStart(2, "0")).join("")

describe("drawFromBytes", () => {
  it("reads big-endian 32-bit chunks and reduces the first accepted one", () => {
    assert.deepStrictEqual(drawFromBytes(bytes(12345), 100), Option.some(45))
    assert.deepStrictEqual(drawFromBytes(hex("000000ff"), 100), Option.some(55))
    assert.deepStrictEqual(drawFromBytes(hex("80000000"), 100), Option.some(2 ** 31 % 100))
  })

  it("rejects chunks at or above the largest multiple of the total, then tries the next", () => {
    // 2^32 = 42949672 * 100 + 96: the top 96 values would favour draws 0–95.
    assert.strictEqual(acceptanceLimit(100), 4_294_967_200)
    assert.deepStrictEqual(drawFromBytes(bytes(4_294_967_199), 100), Option.some(99))
    assert.deepStrictEqual(drawFromBytes(bytes(4_294_967_200, 7), 100), Option.some(7))
    assert.deepStrictEqual(drawFromBytes(bytes(0xffffffff, 0xffffffff), 100), Option.none())
    assert.deepStrictEqual(drawFromBytes(bytes(0xffffffff, 5), 3), Option.some(2))
    assert.deepStrictEqual(drawFromBytes(new Uint8Array(3), 100), Option.none(), "a partial chunk is never read")
  })

  it("accepts every chunk when the total divides 2^32", () => {
    assert.strictEqual(acceptanceLimit(2 ** 32), 2 ** 32)
    assert.deepStrictEqual(drawFromBytes(bytes(0xffffffff), 2 ** 32), Option.some(0xffffffff))
    assert.deepStrictEqual(drawFromBytes(bytes(0xffffffff), 256), Option.some(255))
  })

  it("maps each value of [0, total) from exactly limit/total accepted chunks", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 32 }), (total) => {
        const limit = acceptanceLimit(total)
        assert.strictEqual(limit % total, 0)
        assert.isTrue(limit > 2 ** 32 - total && limit <= 2 ** 32)
      })
    )
  })

  it("always lands in [0, total) or asks for more bytes", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 40 }),
        fc.integer({ min: 1, max: 2 ** 32 }),
        (data, total) => {
          const drawn = drawFromBytes(data, total)
          if (Option.isSome(drawn))
            assert.isTrue(drawn.value >= 0 && drawn.value < total && Number.isInteger(drawn.value))
          else assert.isTrue(data.length < 4 || acceptanceLimit(total) < 2 ** 32)
        }
      )
    )
  })

  it("refuses an impossible total", () => {
    for (const total of [0, -1, 1.5, 2 ** 32 + 1]) assert.throws(() => drawFromBytes(bytes(1), total))
  })
})

describe("segments", () => {
  const segments = defaultWheel("NGN").segments

  it("own consecutive ranges as wide as their weights, in display order", () => {
    assert.deepStrictEqual(
      segmentRanges(segments).map(({ segmentId, from, to }) => `${segmentId} ${from}-${to}`),
      [
        "seg-₦50 0-10",
        "seg-10coins 10-30",
        "seg-₦100 30-38",
        "seg-20coins 38-53",
        "seg-tryagain 53-83",
        "seg-₦500 83-88",
        "seg-50coins 88-98",
        "seg-₦1,000 98-100"
      ]
    )
    const edges: ReadonlyArray<readonly [number, string]> = [
      [0, "seg-₦50"],
      [9, "seg-₦50"],
      [10, "seg-10coins"],
      [37, "seg-₦100"],
      [38, "seg-20coins"],
      [82, "seg-tryagain"],
      [97, "seg-50coins"],
      [99, "seg-₦1,000"]
    ]
    for (const [draw, id] of edges) assert.strictEqual(segmentAt(segments, draw).id, id)
    assert.throws(() => segmentIndexAt(segments, 100))
  })

  it("of weight 0 are never drawn", () => {
    const zeroFirst = segments.map((segment, index) => (index === 0 ? { ...segment, weight: 0 } : segment))
    assert.strictEqual(segmentIndexAt(zeroFirst as typeof segments, 0), 1)
  })
})

describe("the provably-fair draw", () => {
  it.effect("uses standard SHA-256 and HMAC-SHA256 (FIPS 180-2 and RFC 4231 vectors)", () =>
    Effect.gen(function* () {
      const crypto = yield* SeedCrypto
      assert.strictEqual(
        toHex(yield* crypto.sha256(Uint8Array.from([0x61, 0x62, 0x63]))),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
      )
      assert.strictEqual(
        toHex(yield* crypto.hmacSha256(Uint8Array.from([0x4a, 0x65, 0x66, 0x65]), "what do ya want for nothing?")),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
      )
    }).pipe(Effect.provide(layerWebCryptoSeedCrypto))
  )

  it("binds the draw to client seed, user and nonce in an unambiguous JSON message", () => {
    const input = { clientSeed: "my seed", userId: "u:1", nonce: 3 }
    assert.strictEqual(drawMessage(input, 0), '["my seed","u:1",3]')
    assert.strictEqual(drawMessage(input, 2), '["my seed","u:1",3,2]')
    // Separators inside a field cannot move a boundary: these would collide if joined with ":" or ",".
    const pairs = [
      [
        { clientSeed: "a:b", userId: "c", nonce: 0 },
        { clientSeed: "a", userId: "b:c", nonce: 0 }
      ],
      [
        { clientSeed: 'a","b', userId: "c", nonce: 0 },
        { clientSeed: "a", userId: 'b","c', nonce: 0 }
      ],
      [
        { clientSeed: "x", userId: "\ud800", nonce: 0 },
        { clientSeed: "x", userId: "\ud801", nonce: 0 }
      ]
    ] as const
    for (const [one, other] of pairs) assert.notStrictEqual(drawMessage(one, 0), drawMessage(other, 0))
    assert.strictEqual(drawMessage({ clientSeed: 'q"\\', userId: "é", nonce: 0 }, 0), '["q\\"\\\\","é",0]')
    assert.strictEqual(drawMessage({ clientSeed: "x", userId: "\ud800", nonce: 0 }, 0), '["x","\\ud800",0]')
  })

  it("keeps the earlier message for spins recorded before client seeds", () => {
    assert.strictEqual(legacyDrawMessage({ userId: "u:1", round: "2026-05-01", nonce: 0 }, 0), "u:1:2026-05-01:0")
    assert.strictEqual(legacyDrawMessage({ userId: "u:1", round: "2026-05-01", nonce: 0 }, 2), "u:1:2026-05-01:0:2")
  })

  it.effect("draws from the first accepted chunk of HMAC(seed, message) and verifies", () =>
    Effect.gen(function* () {
      const crypto = yield* SeedCrypto
      const seed = hex("0f".repeat(32))
      const input = { clientSeed: "lucky", userId: "alice", nonce: 0 }
      const mac = yield* crypto.hmacSha256(seed, '["lucky","alice",0]')
      const expected = Option.getOrThrow(drawFromBytes(mac, 100))
      assert.strictEqual(yield* drawValue(crypto, seed, input, 100), expected)
      const commitment = yield* commitmentOf(crypto, seed)
      const checked = yield* verify(crypto, { seed, commitment, input, segments: defaultWheel("NGN").segments })
      assert.isTrue(checked.commitmentMatches)
      assert.strictEqual(checked.drawValue, expected)
      assert.strictEqual(checked.segment.id, segmentAt(defaultWheel("NGN").segments, expected).id)
      const wrong = yield* verify(crypto, {
        seed: hex("0e".repeat(32)),
        commitment,
        input,
        segments: defaultWheel("NGN").segments
      })
      assert.isFalse(wrong.commitmentMatches)
      // A legacy input is drawn from the legacy message.
      const legacyMac = yield* crypto.hmacSha256(seed, "alice:2026-05-01:0")
      assert.strictEqual(
        yield* drawValue(crypto, seed, { userId: "alice", round: "2026-05-01", nonce: 0 }, 100),
        Option.getOrThrow(drawFromBytes(legacyMac, 100))
      )
    }).pipe(Effect.provide(layerWebCryptoSeedCrypto))
  )

  it.effect("moves on to the next HMAC when all eight chunks are rejected", () =>
    Effect.gen(function* () {
      // A stand-in HMAC that rejects everything on attempt 0 shows the fall-through message.
      const seen: Array<string> = []
      const fake = SeedCrypto.of({
        sha256: () => Effect.succeed(new Uint8Array(32)),
        hmacSha256: (_key, message) =>
          Effect.sync(() => {
            seen.push(message)
            return message.endsWith(",1]") ? bytes(41, 0, 0, 0, 0, 0, 0, 0) : bytes(...Array(8).fill(0xffffffff))
          })
      })
      const value = yield* drawValue(fake, new Uint8Array(32), { clientSeed: "s", userId: "u", nonce: 0 }, 100)
      assert.strictEqual(value, 41)
      assert.deepStrictEqual(seen, ['["s","u",0]', '["s","u",0,1]'])
    })
  )
})
