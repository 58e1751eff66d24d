import { type BigDecimal, Result } from "effect"
import { type Currency, currencySymbol, Money } from "../money/index.ts"
import type { NotificationContent } from "./Model.ts"

/** "1234567" → "1,234,567", whatever the host's locale. */
const groupDigits = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",")

/**
 * An amount as a user reads it: the currency's symbol, thousands grouped, exactly the currency's
 * decimals ("₦4,950.50", "KSh 1,000.00", "¥5,000"). A letter symbol is followed by a space, as on
 * the wheel's labels. An amount too precise for its currency keeps all its digits rather than being
 * rounded: a notification never states a sum that was not moved.
 */
export const formatAmount = (currency: Currency, amount: BigDecimal.BigDecimal): string => {
  const text = Result.match(Money.toMinorUnits(Money.make(currency, amount)), {
    onSuccess: (minor) => Money.formatMinorUnits(currency, minor),
    onFailure: () => Money.format(Money.make(currency, amount))
  })
  const negative = text.startsWith("-")
  const [whole = "0", fraction] = (negative ? text.slice(1) : text).split(".")
  const symbol = currencySymbol(currency)
  const separator = /\p{L}$/u.test(symbol) ? " " : ""
  return `${negative ? "-" : ""}${symbol}${separator}${groupDigits(whole)}${fraction === undefined ? "" : `.${fraction}`}`
}

/** A deposit credited to the user's wallet: "You received ₦4,950.50 from JOHN DOE". */
export const depositReceived = (options: {
  readonly currency: Currency
  readonly amount: BigDecimal.BigDecimal
  readonly senderName: string | null
}): NotificationContent => {
  const amount = formatAmount(options.currency, options.amount)
  return {
    templateCode: "DEPOSIT_RECEIVED",
    title: "Money received",
    body: options.senderName === null ? `You received ${amount}` : `You received ${amount} from ${options.senderName}`
  }
}

/** A spin-and-win prize of cash or coins credited to the user (a prize of nothing is not announced). */
export type PrizeWon =
  | { readonly type: "cash"; readonly currency: Currency; readonly amount: BigDecimal.BigDecimal }
  | { readonly type: "coin"; readonly coins: bigint }

/** "You won ₦500.00 on Spin and Win" / "You won 50 coins on Spin and Win". */
export const prizeWon = (prize: PrizeWon): NotificationContent => {
  const what =
    prize.type === "cash"
      ? formatAmount(prize.currency, prize.amount)
      : `${groupDigits(prize.coins.toString())} coin${prize.coins === 1n ? "" : "s"}`
  return { templateCode: "SPIN_PRIZE_WON", title: "You won a prize", body: `You won ${what} on Spin and Win` }
}
