import { assert, describe, it } from "@effect/vitest"
import { acceptanceLimit, defaultWheel, drawFromBytes, ProvablyFair, segmentAt } from "@payments-gaming/domain/wheel"
import { Effect, Option } from "effect"
import * as NodeSeedCrypto from "../../src/wheel/NodeSeedCrypto.ts"

// The numbers of the worked example in docs/provably-fair.md; if this fails, the document is wrong.
const SEED = "9f1c2b7e5a3d4c6f8e0b1a2d3c4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6"
const COMMITMENT = "981e0e424458a1608c2615f921d59c19c86973316473845be75e20ff71a624b4"
const HMAC = "aab742fad4fbf289fd6ca92f4b71fa1d389cac7bb775daf7b55431f61edc6a5f"

describe("docs/provably-fair.md worked example", () => {
  it.effect("is what the code computes", () =>
    Effect.gen(function* () {
      const crypto = NodeSeedCrypto.make
      const seed = new Uint8Array(Buffer.from(SEED, "hex"))
      const input = { userId: "user-42", round: "2026-05-01", nonce: 0 }
      assert.strictEqual(yield* ProvablyFair.commitmentOf(crypto, seed), COMMITMENT)
      assert.strictEqual(ProvablyFair.drawMessage(input, 0), "user-42:2026-05-01:0")
      const mac = yield* crypto.hmacSha256(seed, ProvablyFair.drawMessage(input, 0))
      assert.strictEqual(Buffer.from(mac).toString("hex"), HMAC)
      assert.strictEqual(Buffer.from(mac).readUInt32BE(0), 2_864_136_954)
      assert.strictEqual(acceptanceLimit(100), 4_294_967_200)
      assert.deepStrictEqual(drawFromBytes(mac, 100), Option.some(54))
      assert.strictEqual(segmentAt(defaultWheel("NGN").segments, 54).id, "seg-tryagain")
      const checked = yield* ProvablyFair.verify(crypto, {
        seed,
        commitment: COMMITMENT,
        input,
        segments: defaultWheel("NGN").segments
      })
      assert.deepStrictEqual(
        [checked.commitmentMatches, checked.drawValue, checked.segment.label],
        [true, 54, "Try again"]
      )
    })
  )
})
