import { type Currency, currencySymbol } from "../money/index.ts"

/** "1000000" → "1,000,000": groups of three from the right, whatever the locale of the host. */
export const groupThousands = (value: number): string => {
  const digits = String(Math.abs(value))
  const groups: Array<string> = []
  for (let end = digits.length; end > 0; end -= 3) groups.unshift(digits.slice(Math.max(0, end - 3), end))
  return `${value < 0 ? "-" : ""}${groups.join(",")}`
}

/** A whole amount of a currency as a wheel label: "₦1,000", "$50", "KSh 500". */
export const cashLabel = (currency: Currency, value: number): string => {
  const symbol = currencySymbol(currency)
  const separator = /\p{L}$/u.test(symbol) ? " " : ""
  return `${symbol}${separator}${groupThousands(value)}`
}

/** "10 coins", "1 coin", "1,000 coins". */
export const coinLabel = (value: number): string => `${groupThousands(value)} coin${value === 1 ? "" : "s"}`

/** The label of a segment that pays nothing. */
export const NO_PRIZE_LABEL = "Try again"
