import { describe, expect, it } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import { readWebhook } from "@payments-gaming/domain/banking"
import { LedgerKeys, Movements } from "@payments-gaming/domain/ledger"
import { BigDecimal, Result } from "effect"
import { bytes, credit, transferEvent } from "../support/fixtures.ts"

// These texts are stored in production databases (ledger_transactions.idempotency_key,
// webhook_events.dedup_key): a change here would post a redelivered credit a second time.
describe("ledger keys", () => {
  it("keeps every key format byte for byte", () => {
    expect(LedgerKeys.depositKey("VA-1")).toBe("virtualaccount.credit:VA-1")
    expect(LedgerKeys.holdKey("TR-1")).toBe("transfer:TR-1:hold")
    expect(LedgerKeys.settleKey("TR-1")).toBe("transfer:TR-1:settle")
    expect(LedgerKeys.returnKey("TR-1")).toBe("transfer:TR-1:return")
    expect(LedgerKeys.webhookKey("virtualaccount.credit", "VA-1")).toBe("virtualaccount.credit:VA-1")
    expect(LedgerKeys.webhookKey("transfer.success", "TR-1")).toBe("transfer.success:TR-1")
    expect(LedgerKeys.webhookKey("transfer.failed", "TR-1")).toBe("transfer.failed:TR-1")
    expect(LedgerKeys.webhookKey("ignored", "X-1")).toBe("ignored:X-1")
  })

  it("is what the movements post under and what the decoder deduplicates on", () => {
    const options = {
      reference: "R:1",
      userId: "u1" as UserId,
      currency: "NGN" as const,
      amount: BigDecimal.fromStringUnsafe("1")
    }
    expect(Result.getOrThrow(Movements.deposit(options)).key).toBe("virtualaccount.credit:R:1")
    expect(Result.getOrThrow(Movements.hold(options)).key).toBe("transfer:R:1:hold")
    expect(Result.getOrThrow(Movements.settle(options)).key).toBe("transfer:R:1:settle")
    expect(Result.getOrThrow(Movements.returnHold(options)).key).toBe("transfer:R:1:return")
    const decodedKey = (payload: unknown) => Result.getOrThrow(readWebhook(bytes(payload))).dedupKey
    expect(decodedKey(credit({ reference: "R:1", accountNumber: "0123456789" }))).toBe("virtualaccount.credit:R:1")
    expect(decodedKey(transferEvent({ outcome: "success", reference: "R:1", amount: "1.00" }))).toBe(
      "transfer.success:R:1"
    )
    expect(decodedKey(transferEvent({ outcome: "failed", reference: "R:1", amount: "1.00" }))).toBe(
      "transfer.failed:R:1"
    )
  })
})
