import { assert, describe, it } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import {
  type CreditPayload,
  creditAccountNumber,
  decideCredit,
  decideTransfer,
  readWebhook,
  type Transfer,
  type TransferPayload,
  type VirtualAccount
} from "@payments-gaming/domain/banking"
import { BigDecimal, Option, Result } from "effect"
import { bytes, credit, type Json, transferEvent } from "../support/fixtures.ts"

const account: VirtualAccount = {
  accountNumber: "9900112233",
  userId: "ada" as UserId,
  currency: "NGN",
  accountName: null,
  bankName: null,
  createdAt: new Date(0)
}

const asCredit = (payload: Json): CreditPayload => {
  const decoded = Result.getOrThrow(readWebhook(bytes(payload)))
  if (decoded.kind !== "virtualaccount.credit") throw new Error(`not a credit: ${decoded.kind}`)
  return decoded.payload
}

const asTransfer = (payload: Json): TransferPayload => {
  const decoded = Result.getOrThrow(readWebhook(bytes(payload)))
  if (decoded.kind !== "transfer.success" && decoded.kind !== "transfer.failed") throw new Error("not a transfer")
  return decoded.payload
}

const base = { reference: "VA-1", accountNumber: "9900112233" }

describe("credit rules", () => {
  it("accepts the spec example and credits settled_amount to the owner", () => {
    const decision = decideCredit(asCredit(credit(base)), Option.some(account))
    assert.strictEqual(decision._tag, "Accept")
    if (decision._tag === "Accept") {
      assert.strictEqual(decision.action.userId, "ada")
      assert.strictEqual(decision.action.currency, "NGN")
      assert.strictEqual(BigDecimal.format(decision.action.amount), "4950.5")
    }
  })

  it("finds the account in virtualAccountNumber, else data.virtual_account_number, else data.account_number", () => {
    const payload = credit({
      ...base,
      top: { virtualAccountNumber: "A" },
      data: { virtual_account_number: "B", account_number: "C" }
    })
    assert.strictEqual(creditAccountNumber(asCredit(payload)), "A")
    payload.virtualAccountNumber = null
    assert.strictEqual(creditAccountNumber(asCredit(payload)), "B")
    delete payload.virtualAccountNumber
    payload.data.virtual_account_number = null
    assert.strictEqual(creditAccountNumber(asCredit(payload)), "C")
    payload.virtualAccountNumber = ""
    assert.strictEqual(creditAccountNumber(asCredit(payload)), "C")
  })

  const rejected: ReadonlyArray<readonly [string, Json, string]> = [
    ["status not SUCCESSFUL", credit({ ...base, data: { status: "PENDING" } }), "data.status is PENDING"],
    ["type not CREDIT", credit({ ...base, data: { type: "DEBIT" } }), "data.type is DEBIT"],
    ["amount zero", credit({ ...base, amount: 0, fee: "0", settled: 0 }), "amount 0 is not greater than 0"],
    ["amount negative", credit({ ...base, amount: -10, fee: "0", settled: -10 }), "amount -10 is not greater than 0"],
    ["negative fee", credit({ ...base, amount: 100, fee: "-1", settled: 101 }), "fee -1 is negative"],
    [
      "settled is not amount - fee",
      credit({ ...base, amount: 100, fee: "1", settled: 98.99 }),
      "is not amount 100 minus fee 1"
    ],
    ["fee swallows the amount", credit({ ...base, amount: 100, fee: "100", settled: 0 }), "leaves nothing to credit"],
    [
      "too many decimals",
      credit({ ...base, amount: "100.001", fee: "0", settled: "100.001" }),
      "more than 2 decimal places"
    ],
    ["unsupported currency", credit({ ...base, currency: "XYZ" }), "currency XYZ is not supported"],
    ["wrong currency for the account", credit({ ...base, currency: "USD" }), "differs from account 9900112233's NGN"],
    ["wrong top-level type", credit({ ...base, top: { type: "TRANSFER" } }), "type is TRANSFER"],
    ["wrong event", credit({ ...base, top: { event: "VIRTUAL-ACCOUNT-OUTFLOW" } }), "event is VIRTUAL-ACCOUNT-OUTFLOW"]
  ]
  for (const [name, payload, reason] of rejected) {
    it(`rejects: ${name}`, () => {
      const decision = decideCredit(asCredit(payload), Option.some(account))
      assert.strictEqual(decision._tag, "Reject")
      if (decision._tag === "Reject") assert.include(decision.reason, reason)
    })
  }

  it("leaves an unknown account unmatched, but rejects a broken event even without one", () => {
    const unknown = decideCredit(asCredit(credit(base)), Option.none())
    assert.deepStrictEqual(unknown, { _tag: "Unmatched", reason: "no virtual account 9900112233 is linked" })
    const broken = decideCredit(asCredit(credit({ ...base, data: { status: "FAILED" } })), Option.none())
    assert.strictEqual(broken._tag, "Reject")
  })

  it("compares settled_amount exactly, whatever the notation", () => {
    const decision = decideCredit(
      asCredit(credit({ ...base, amount: "1500.50", fee: 0.5, settled: 1500 })),
      Option.some(account)
    )
    assert.strictEqual(decision._tag, "Accept")
  })
})

describe("transfer rules", () => {
  const transfer = (status: Transfer["status"]): Transfer => ({
    reference: "TRF-1",
    userId: "ada" as UserId,
    currency: "NGN",
    amount: BigDecimal.fromStringUnsafe("2500"),
    status,
    createdAt: new Date(0),
    updatedAt: new Date(0)
  })
  const success = asTransfer(transferEvent({ outcome: "success", reference: "TRF-1", amount: "2500.00" }))
  const failed = asTransfer(transferEvent({ outcome: "failed", reference: "TRF-1", amount: 2500 }))

  it("settles or returns a pending transfer", () => {
    const settle = decideTransfer("transfer.success", success, Option.some(transfer("PENDING")))
    assert.isTrue(settle._tag === "Accept" && settle.action._tag === "Settle")
    const back = decideTransfer("transfer.failed", failed, Option.some(transfer("PENDING")))
    assert.isTrue(back._tag === "Accept" && back.action._tag === "Return")
  })

  it("is a no-op for a transfer already final in the same state, and parks the opposite", () => {
    const same = decideTransfer("transfer.success", success, Option.some(transfer("SETTLED")))
    assert.isTrue(same._tag === "Accept" && same.action._tag === "AlreadyFinal")
    const opposite = decideTransfer("transfer.failed", failed, Option.some(transfer("SETTLED")))
    assert.deepStrictEqual(opposite, { _tag: "Reject", reason: "transfer TRF-1 is already SETTLED" })
    const late = decideTransfer("transfer.success", success, Option.some(transfer("FAILED")))
    assert.strictEqual(late._tag, "Reject")
  })

  it("leaves an unknown reference unmatched", () => {
    assert.deepStrictEqual(decideTransfer("transfer.success", success, Option.none()), {
      _tag: "Unmatched",
      reason: "no outbound transfer TRF-1 is recorded"
    })
  })

  /** A transfer event for TRF-1 of 2500 (`fields` change it), as the provider sends it. */
  const trf = (
    outcome: "success" | "failed",
    fields: Omit<Partial<Parameters<typeof transferEvent>[0]>, "outcome"> = {}
  ) => transferEvent({ outcome, reference: "TRF-1", amount: "2500", ...fields })
  // [name, the event's outcome (and so its kind), what differs from a good TRF-1 event of 2500, the reason]
  const rejected: ReadonlyArray<
    readonly [string, "success" | "failed", Omit<Partial<Parameters<typeof transferEvent>[0]>, "outcome">, string]
  > = [
    ["amount differs from the hold", "success", { amount: "2500.01" }, "differs from the held 2500.00"],
    ["currency differs", "success", { currency: "USD" }, "currency USD differs"],
    ["status does not match the event", "success", { data: { status: "FAILED" } }, "expected SUCCESSFUL"],
    ["failure reported as successful", "failed", { data: { status: "SUCCESSFUL" } }, "expected FAILED"],
    ["not a debit", "success", { data: { type: "CREDIT" } }, "data.type is CREDIT"],
    ["wrong top-level type", "success", { top: { type: "VIRTUAL-ACCOUNT" } }, "expected TRANSFER"],
    [
      "event name does not match the flag",
      "success",
      { top: { event: "TRANSFER-FAILED" } },
      "expected TRANSFER-SUCCESS"
    ],
    ["amount not positive", "success", { amount: "0" }, "not greater than 0"],
    ["negative fee", "success", { data: { fee: "-1" } }, "fee -1 is negative"]
  ]
  for (const [name, outcome, fields, reason] of rejected) {
    it(`rejects: ${name}`, () => {
      const kind = outcome === "success" ? "transfer.success" : "transfer.failed"
      const decision = decideTransfer(kind, asTransfer(trf(outcome, fields)), Option.some(transfer("PENDING")))
      assert.strictEqual(decision._tag, "Reject")
      if (decision._tag === "Reject") assert.include(decision.reason, reason)
    })
  }
})
