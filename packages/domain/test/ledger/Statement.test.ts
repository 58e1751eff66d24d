import { assert, describe, it } from "@effect/vitest"
import {
  balancesAfter,
  Instant,
  LedgerKeys,
  replayBreaks,
  StatementCursor,
  type StatementItem,
  statementKindOf,
  toStatementItem
} from "@payments-gaming/domain/ledger"
import { Result, Schema } from "effect"

const item = (overrides: Partial<StatementItem>): StatementItem => ({
  id: "1",
  occurredAt: "2026-11-21T18:30:00.000Z",
  kind: "deposit",
  direction: "CREDIT",
  amount: "0.00",
  balanceAfter: "0.00",
  currency: "NGN",
  reference: "R",
  ...overrides
})

describe("the statement's rules", () => {
  it("shows the ledger's kinds, a prize as the wheel's", () => {
    assert.strictEqual(statementKindOf("prize"), "spin.prize")
    for (const kind of ["deposit", "transfer.hold", "transfer.settle", "transfer.return"] as const) {
      assert.strictEqual(statementKindOf(kind), kind)
    }
  })

  it("reads every key back to the reference it was made from, colons and suffix-like text included", () => {
    for (const reference of ["VA-1", "R:1", "TR:x:hold", "transfer:y:return", ":", "a".repeat(256)]) {
      assert.strictEqual(LedgerKeys.referenceOf("deposit", LedgerKeys.depositKey(reference)), reference)
      assert.strictEqual(LedgerKeys.referenceOf("transfer.hold", LedgerKeys.holdKey(reference)), reference)
      assert.strictEqual(LedgerKeys.referenceOf("transfer.settle", LedgerKeys.settleKey(reference)), reference)
      assert.strictEqual(LedgerKeys.referenceOf("transfer.return", LedgerKeys.returnKey(reference)), reference)
    }
    assert.strictEqual(
      LedgerKeys.referenceOf("prize", "0b6f7c1e-5d0a-4a57-9a55-3d8e2f1c9b10"),
      "0b6f7c1e-5d0a-4a57-9a55-3d8e2f1c9b10"
    )
    // A key its kind's builder did not make is shown whole, never cut wrongly.
    assert.strictEqual(LedgerKeys.referenceOf("deposit", "legacy-1"), "legacy-1")
    assert.strictEqual(LedgerKeys.referenceOf("transfer.hold", "transfer::hold"), "transfer::hold")
    assert.strictEqual(LedgerKeys.referenceOf("transfer.return", "transfer:T:hold"), "transfer:T:hold")
  })

  it("makes an item of an entry: unsigned amounts with a direction, coins as integers, the reference read back", () => {
    const at = new Date("2026-11-21T18:30:00.123Z")
    assert.deepStrictEqual(
      toStatementItem(
        {
          id: 42n,
          occurredAt: at,
          kind: "transfer.hold",
          key: LedgerKeys.holdKey("TR-9"),
          unit: "NGN",
          amountMinor: -495050n,
          balanceAfterMinor: 5n
        },
        "sealed-42"
      ),
      {
        id: "sealed-42",
        occurredAt: "2026-11-21T18:30:00.123Z",
        kind: "transfer.hold",
        direction: "DEBIT",
        amount: "4950.50",
        balanceAfter: "0.05",
        currency: "NGN",
        reference: "TR-9"
      }
    )
    const prize = toStatementItem(
      {
        id: 7n,
        occurredAt: at,
        kind: "prize",
        key: "spin-1",
        unit: "COIN",
        amountMinor: 20n,
        balanceAfterMinor: 70n
      },
      "sealed-7"
    )
    assert.deepStrictEqual(
      [prize.kind, prize.direction, prize.amount, prize.balanceAfter, prize.currency, prize.reference],
      ["spin.prize", "CREDIT", "20", "70", "COIN", "spin-1"]
    )
    assert.strictEqual(
      toStatementItem(
        {
          id: 8n,
          occurredAt: at,
          kind: "deposit",
          key: "k",
          unit: "KWD",
          amountMinor: 1250n,
          balanceAfterMinor: 1250n
        },
        "sealed-8"
      ).amount,
      "1.250"
    )
  })

  it("walks balances back from the newest: each older one is the newer less the newer posting", () => {
    assert.deepStrictEqual(balancesAfter(15000n, [-50n, 3025n, -3025n, 5000n]), [15000n, 15050n, 12025n, 15050n])
    assert.deepStrictEqual(balancesAfter(7n, []), [])
  })

  it("finds where a statement does not replay, per currency", () => {
    const items = [
      item({ id: "4", direction: "DEBIT", amount: "0.50", balanceAfter: "150.00" }),
      item({ id: "3", currency: "COIN", amount: "20", balanceAfter: "20" }),
      item({ id: "2", amount: "50.00", balanceAfter: "150.50" }),
      item({ id: "1", amount: "100.50", balanceAfter: "100.50" })
    ]
    assert.deepStrictEqual(replayBreaks(items), [])
    const broken = items.map((entry) => (entry.id === "2" ? { ...entry, balanceAfter: "150.49" } : entry))
    assert.lengthOf(replayBreaks(broken), 2)
    assert.lengthOf(replayBreaks([items[0]!, item({ id: "0", amount: "x", balanceAfter: "1" })]), 1)
  })

  it("the cursor is URL-safe text of at most 128 characters; whose it is, the service decides", () => {
    const decode = Schema.decodeUnknownResult(StatementCursor)
    for (const good of ["A".repeat(22), "q9_-Zz0aAbB1cC2dD3eE4f", "x"])
      assert.isTrue(Result.isSuccess(decode(good)), good)
    for (const bad of ["", "!!!", "a b", "x".repeat(129), "abc=", 42]) {
      assert.isTrue(Result.isFailure(decode(bad)), String(bad))
    }
  })

  it("reads a period bound as an ISO 8601 instant with an offset, nothing looser", () => {
    const decode = Schema.decodeUnknownResult(Instant)
    const at = (text: string) => Result.getOrThrow(decode(text)).toISOString()
    assert.strictEqual(at("2026-11-21T18:30:00Z"), "2026-11-21T18:30:00.000Z")
    assert.strictEqual(at("2026-11-21T18:30Z"), "2026-11-21T18:30:00.000Z")
    assert.strictEqual(at("2026-11-21T19:30:00.250+01:00"), "2026-11-21T18:30:00.250Z")
    assert.strictEqual(at("2026-11-21T00:30:00-05:30"), "2026-11-21T06:00:00.000Z")
    assert.strictEqual(at("2024-02-29T23:59:59.999Z"), "2024-02-29T23:59:59.999Z")
    for (const bad of [
      "",
      "2026-11-21",
      "2026-11-21T18:30:00",
      "2026-11-21 18:30:00Z",
      "2026-02-30T00:00:00Z",
      "2025-02-29T00:00:00+01:00",
      "2026-11-21T24:00:00Z",
      "2026-11-21T18:60:00Z",
      "2026-11-21T18:30:00z",
      "1732212345678",
      "yesterday",
      42
    ]) {
      assert.isTrue(Result.isFailure(decode(bad)), String(bad))
    }
  })
})
