import { BigDecimal } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { CreditPayload } from "../banking/WebhookPayload.ts"
import { depositKey } from "../ledger/LedgerKeys.ts"
import type { Currency } from "../money/index.ts"
import type { OutboxEvent } from "./Model.ts"
import { depositReceived, type PrizeWon, prizeWon, senderName } from "./Templates.ts"

/**
 * The notification of a credited deposit, keyed by its ledger transaction: the webhook and any
 * replay of it name the same event, so a user hears of one deposit once per device.
 */
export const depositNotification = (options: {
  readonly reference: string
  readonly payload: CreditPayload
  readonly userId: UserId
  readonly currency: Currency
  readonly amount: BigDecimal.BigDecimal
}): OutboxEvent => ({
  eventKey: depositKey(options.reference),
  userId: options.userId,
  content: depositReceived({
    currency: options.currency,
    amount: options.amount,
    senderName: senderName(options.payload)
  })
})

/** The notification of a spin's prize, keyed by the spin's ledger transaction (the spin id). */
export const prizeNotification = (options: {
  readonly key: string
  readonly userId: UserId
  readonly prize: PrizeWon
}): OutboxEvent => ({ eventKey: options.key, userId: options.userId, content: prizeWon(options.prize) })

/**
 * The notification of a spin's prize, to commit with the spin and its posting (`NotifiedPosting`);
 * a prize of nothing is not announced.
 */
export const spinPrizeNotification = (
  spin: {
    readonly spinId: string
    readonly userId: UserId
    readonly prize: { readonly type: "cash" | "coin"; readonly value: number }
  },
  currency: Currency
): OutboxEvent | undefined => {
  if (spin.prize.value <= 0) return undefined
  const value = BigInt(spin.prize.value)
  const prize: PrizeWon =
    spin.prize.type === "coin"
      ? { type: "coin", coins: value }
      : { type: "cash", currency, amount: BigDecimal.fromBigInt(value) }
  return prizeNotification({ key: spin.spinId, userId: spin.userId, prize })
}
