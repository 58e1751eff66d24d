import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import type { UserId } from "../../src/auth/Model.ts"
import type { ClientSeed } from "../../src/wheel/ClientSeed.ts"
import type { SegmentId } from "../../src/wheel/Model.ts"
import type { RoundId } from "../../src/wheel/Round.ts"
import { type IdempotencyKey, oneSpinPerRound, Spin, type SpinId } from "../../src/wheel/Spin.ts"

let sequence = 0
const spinOf = (userId: string, round: string, idempotencyKey: string | null) =>
  new Spin({
    spinId: `00000000-0000-4000-8000-${(++sequence).toString(16).padStart(12, "0")}` as SpinId,
    userId: userId as UserId,
    round: round as RoundId,
    wheelVersion: 1,
    clientSeed: "seed" as ClientSeed,
    nonce: 0,
    drawValue: 0,
    segmentId: "seg-10coins" as SegmentId,
    prize: { type: "coin", value: 10 },
    createdAt: DateTime.makeUnsafe("2026-05-01T12:00:00Z"),
    idempotencyKey: idempotencyKey as IdempotencyKey | null
  })

describe("the rule: one spin per user per round", () => {
  const recorded = [spinOf("ada", "2026-05-01", "key-1"), spinOf("bob", "2026-05-02", null)]

  it("refuses a second spin of a user in a round, or under a key the user used, with AlreadySpun of its round", () => {
    const sameRound = oneSpinPerRound(spinOf("ada", "2026-05-01", "key-2"), recorded)
    const sameKey = oneSpinPerRound(spinOf("ada", "2026-05-03", "key-1"), recorded)
    assert.deepStrictEqual(
      [sameRound?._tag, sameRound?.round, sameKey?._tag, sameKey?.round],
      ["AlreadySpun", "2026-05-01", "AlreadySpun", "2026-05-03"]
    )
    assert.strictEqual(oneSpinPerRound(spinOf("bob", "2026-05-02", "key-9"), recorded)?._tag, "AlreadySpun")
  })

  it("allows another round, another user with the same round and key, and spins without a key", () => {
    assert.isUndefined(oneSpinPerRound(spinOf("ada", "2026-05-02", "key-2"), recorded))
    assert.isUndefined(oneSpinPerRound(spinOf("carol", "2026-05-01", "key-1"), recorded))
    assert.isUndefined(oneSpinPerRound(spinOf("bob", "2026-05-03", null), recorded))
    assert.isUndefined(oneSpinPerRound(spinOf("ada", "2026-05-01", "key-1"), []))
  })
})
