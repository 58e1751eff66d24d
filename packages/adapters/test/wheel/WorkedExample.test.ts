import { assert, describe, it } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import {
  acceptanceLimit,
  defaultClientSeed,
  defaultWheel,
  drawFromBytes,
  ProvablyFair,
  segmentAt
} from "@payments-gaming/domain/wheel"
import { Effect, Option } from "effect"
import * as NodeSeedCrypto from "../../src/wheel/NodeSeedCrypto.ts"

// The numbers of the worked example in docs/provably-fair.md; if this fails, the document is wrong.
const SEED = "9f1c2b7e5a3d4c6f8e0b1a2d3c4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6"
const COMMITMENT = "981e0e424458a1608c2615f921d59c19c86973316473845be75e20ff71a624b4"
const MESSAGE = '["correct horse battery staple","user-42",1]'
const HMAC = "d88da2095ef5c1168443db05b03f5206569e4263a86a34aad0bc753016d51eaf"
// The spin before client seeds (section 6 of the document).
const LEGACY_HMAC = "aab742fad4fbf289fd6ca92f4b71fa1d389cac7bb775daf7b55431f61edc6a5f"

describe("docs/provably-fair.md worked example", () => {
  it.effect("is what the code computes", () =>
    Effect.gen(function* () {
      const crypto = NodeSeedCrypto.make
      const seed = new Uint8Array(Buffer.from(SEED, "hex"))
      const input = { clientSeed: "correct horse battery staple", userId: "user-42", nonce: 1 }
      assert.strictEqual(yield* ProvablyFair.commitmentOf(crypto, seed), COMMITMENT)
      assert.strictEqual(ProvablyFair.drawMessage(input, 0), MESSAGE)
      const mac = yield* crypto.hmacSha256(seed, ProvablyFair.drawMessage(input, 0))
      assert.strictEqual(Buffer.from(mac).toString("hex"), HMAC)
      assert.strictEqual(Buffer.from(mac).readUInt32BE(0), 3_633_160_713)
      assert.strictEqual(acceptanceLimit(100), 4_294_967_200)
      assert.deepStrictEqual(drawFromBytes(mac, 100), Option.some(13))
      assert.strictEqual(segmentAt(defaultWheel("NGN").segments, 13).id, "seg-10coins")
      const checked = yield* ProvablyFair.verify(crypto, {
        seed,
        commitment: COMMITMENT,
        input,
        segments: defaultWheel("NGN").segments
      })
      assert.deepStrictEqual(
        [checked.commitmentMatches, checked.drawValue, checked.segment.label],
        [true, 13, "10 coins"]
      )
    })
  )

  it.effect("a spin recorded before client seeds is still what the code computes", () =>
    Effect.gen(function* () {
      const crypto = NodeSeedCrypto.make
      const seed = new Uint8Array(Buffer.from(SEED, "hex"))
      const input = { userId: "user-42", round: "2026-05-01", nonce: 0 }
      assert.strictEqual(ProvablyFair.legacyDrawMessage(input, 0), "user-42:2026-05-01:0")
      const mac = yield* crypto.hmacSha256(seed, ProvablyFair.legacyDrawMessage(input, 0))
      assert.strictEqual(Buffer.from(mac).toString("hex"), LEGACY_HMAC)
      assert.deepStrictEqual(drawFromBytes(mac, 100), Option.some(54))
      const checked = yield* ProvablyFair.verify(crypto, {
        seed,
        commitment: COMMITMENT,
        input,
        segments: defaultWheel("NGN").segments
      })
      assert.deepStrictEqual([checked.drawValue, checked.segment.label], [54, "Try again"])
    })
  )

  it.effect("the default client seed of user-42", () =>
    Effect.gen(function* () {
      assert.strictEqual(
        yield* defaultClientSeed(NodeSeedCrypto.make, "user-42" as UserId),
        "6d894aa3ee802549d7f340e7c1cf0d1c"
      )
    })
  )
})
