import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, Schema } from "effect"
import { senderName } from "../../src/banking/DepositNotification.ts"
import { CreditPayload } from "../../src/banking/WebhookPayload.ts"
import { depositReceived, formatAmount, prizeWon } from "../../src/notifications/index.ts"
import { credit } from "../support/fixtures.ts"

const decimal = (text: string) => BigDecimal.fromStringUnsafe(text)
const payload = (data: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(CreditPayload)(credit({ reference: "VA-1", accountNumber: "9900112233", data }))

describe("formatAmount", () => {
  it.each([
    ["NGN", "4950.5", "₦4,950.50"],
    ["NGN", "1000000", "₦1,000,000.00"],
    ["NGN", "0.05", "₦0.05"],
    ["USD", "12.3", "$12.30"],
    ["KES", "1500", "KSh 1,500.00"],
    ["JPY", "5000", "¥5,000"],
    ["KWD", "1234.5", "KD 1,234.500"]
  ] as const)("%s %s → %s", (currency, amount, expected) => {
    assert.strictEqual(formatAmount(currency, decimal(amount)), expected)
  })

  it("keeps every digit of an amount too precise for its currency rather than rounding it", () => {
    assert.strictEqual(formatAmount("NGN", decimal("1234.567")), "₦1,234.567")
  })
})

describe("senderName", () => {
  it("is sender_account_name when the payload has one", () => {
    assert.strictEqual(senderName(payload({ sender_account_name: "JOHN  DOE " })), "JOHN DOE")
  })

  it("falls back to the source party's account_name, and is null when both are blank", () => {
    assert.strictEqual(senderName(payload({ sender_account_name: null })), "ADA OKAFOR")
    assert.isNull(
      senderName(
        payload({ sender_account_name: " ", source: { bank_name: null, account_name: "", account_number: "1" } })
      )
    )
  })
})

describe("depositReceived", () => {
  it("names the amount in its currency and the sender", () => {
    assert.deepStrictEqual(depositReceived({ currency: "NGN", amount: decimal("4950.50"), senderName: "JOHN DOE" }), {
      templateCode: "DEPOSIT_RECEIVED",
      title: "Money received",
      body: "You received ₦4,950.50 from JOHN DOE"
    })
  })

  it("leaves the sender out when there is none", () => {
    assert.strictEqual(
      depositReceived({ currency: "USD", amount: decimal("20"), senderName: null }).body,
      "You received $20.00"
    )
  })
})

describe("prizeWon", () => {
  it("announces cash in its currency and coins as coins", () => {
    assert.deepStrictEqual(prizeWon({ type: "cash", currency: "NGN", amount: decimal("1000") }), {
      templateCode: "SPIN_PRIZE_WON",
      title: "You won a prize",
      body: "You won ₦1,000.00 on Spin and Win"
    })
    assert.strictEqual(prizeWon({ type: "coin", coins: 1n }).body, "You won 1 coin on Spin and Win")
    assert.strictEqual(prizeWon({ type: "coin", coins: 1500n }).body, "You won 1,500 coins on Spin and Win")
  })
})
