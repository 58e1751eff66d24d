import { BigDecimal } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { Currency } from "../money/index.ts"
import type { OutboxEvent } from "./Model.ts"
import { type PrizeWon, prizeWon } from "./Templates.ts"

/** The notification of a spin's prize, keyed by the spin's ledger transaction (the spin id). */
export const prizeNotification = (options: {
  readonly key: string
  readonly userId: UserId
  readonly prize: PrizeWon
}): OutboxEvent => ({ eventKey: options.key, userId: options.userId, content: prizeWon(options.prize) })

/**
 * The notification of a spin's prize, to commit with the spin and its posting (`LedgerRecorder.record`);
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
