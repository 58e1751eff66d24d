/** The Luhn check digit that makes `payload` + digit a valid number. */
export const luhnCheckDigit = (payload: string) => {
  let sum = 0
  // Walking from the right, the digit next to the (future) check digit is doubled first.
  for (let i = payload.length - 1, double = true; i >= 0; i--, double = !double) {
    let digit = payload.charCodeAt(i) - 48
    if (double) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  return String((10 - (sum % 10)) % 10)
}

export const isLuhnValid = (digits: string) =>
  digits.length > 1 && luhnCheckDigit(digits.slice(0, -1)) === digits.slice(-1)

/**
 * The `index`-th 16-digit VISA number of a run: "4", then `seed` and `index` spread over 14
 * digits, then the check digit. Distinct indexes give distinct numbers (up to 10^9 per seed).
 */
export const visaNumber = (seed: number, index: number) =>
  withCheck(`4${String(seed % 100_000).padStart(5, "0")}${String(index).padStart(9, "0")}`)

const withCheck = (payload: string) => payload + luhnCheckDigit(payload)

const YEAR = new Date().getUTCFullYear()

/** A request body that passes every card rule: a VISA number, a CVV of 3, an expiry two years out. */
export const cardBody = (cardNumber: string) =>
  JSON.stringify({ cardholderName: "Ada Okafor", cardNumber, expiryMonth: 12, expiryYear: YEAR + 2, cvv: "123" })
