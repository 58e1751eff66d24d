import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import type { UserId } from "../../src/auth/Model.ts"
import type { ClientSeed } from "../../src/wheel/ClientSeed.ts"
import type { SegmentId } from "../../src/wheel/Model.ts"
import type { RoundId } from "../../src/wheel/Round.ts"
import { spinOwnerFor, visibleSpins } from "../../src/wheel/RoundViewer.ts"
import { type IdempotencyKey, Spin, type SpinId } from "../../src/wheel/Spin.ts"

const user = (id: string) => id as UserId

const spinOf = (userId: string, index: number) =>
  new Spin({
    spinId: `00000000-0000-4000-8000-00000000000${index}` as SpinId,
    userId: user(userId),
    round: "2026-05-01" as RoundId,
    wheelVersion: 1,
    clientSeed: `seed of ${userId}` as ClientSeed,
    nonce: index,
    drawValue: 10 * index,
    segmentId: "seg-10coins" as SegmentId,
    prize: { type: "coin", value: 10 },
    createdAt: DateTime.makeUnsafe(`2026-05-01T0${index}:00:00Z`),
    idempotencyKey: null
  })

const ROUND_SPINS = [spinOf("alice", 1), spinOf("bob", 2), spinOf("carol", 3)]

describe("RoundViewer", () => {
  it("asks the store for a player's own spins only, and for everyone's for an admin", () => {
    assert.strictEqual(spinOwnerFor({ userId: user("bob"), isAdmin: false }), "bob")
    assert.isUndefined(spinOwnerFor({ userId: user("root"), isAdmin: true }))
  })

  it("shows a player their own spin in full and nothing of anyone else's", () => {
    const shown = visibleSpins({ userId: user("bob"), isAdmin: false }, ROUND_SPINS)
    assert.deepStrictEqual(shown, [
      {
        spinId: ROUND_SPINS[1]!.spinId,
        userId: user("bob"),
        clientSeed: "seed of bob" as ClientSeed,
        nonce: 2,
        wheelVersion: 1,
        drawValue: 20,
        segmentId: "seg-10coins" as SegmentId,
        prize: { type: "coin", value: 10 },
        createdAt: ROUND_SPINS[1]!.createdAt
      }
    ])
    const text = JSON.stringify(shown)
    for (const other of ["alice", "carol", ROUND_SPINS[0]!.spinId, ROUND_SPINS[2]!.spinId])
      assert.notInclude(text, other)
  })

  it("shows a player who did not spin no spin at all", () => {
    assert.deepStrictEqual(visibleSpins({ userId: user("dave"), isAdmin: false }, ROUND_SPINS), [])
  })

  it("shows an admin every spin with its user id, in the store's order", () => {
    const shown = visibleSpins({ userId: user("root"), isAdmin: true }, ROUND_SPINS)
    assert.deepStrictEqual(
      shown.map((spin) => [spin.spinId, spin.userId]),
      ROUND_SPINS.map((spin) => [spin.spinId, spin.userId])
    )
  })

  it("never carries a spin's idempotency key, the client's private retry token", () => {
    const keyed = new Spin({ ...ROUND_SPINS[0]!, idempotencyKey: "private-retry-key" as IdempotencyKey })
    const [shown] = visibleSpins({ userId: user("alice"), isAdmin: false }, [keyed])
    assert.notInclude(JSON.stringify(shown), "private-retry-key")
    assert.deepStrictEqual(Object.keys(shown!).sort(), [
      "clientSeed",
      "createdAt",
      "drawValue",
      "nonce",
      "prize",
      "segmentId",
      "spinId",
      "userId",
      "wheelVersion"
    ])
  })
})
