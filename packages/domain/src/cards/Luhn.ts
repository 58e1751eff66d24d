/**
 * The Luhn (mod 10) checksum every payment card number carries in its last digit. It catches every
 * single-digit error and most swaps of adjacent digits, so a typo is refused before anything else
 * looks at the number. `digits` must contain ASCII digits only.
 */
export const isLuhnValid = (digits: string): boolean => digits.length > 0 && luhnSum(digits, false) % 10 === 0

/** The check digit that makes `payload` followed by it Luhn-valid. */
export const luhnCheckDigit = (payload: string): string => String((10 - (luhnSum(payload, true) % 10)) % 10)

// Walks from the right, doubling every second digit; `doubleFirst` says whether the rightmost digit
// given is one of the doubled ones (it is when the check digit has not been appended yet).
const luhnSum = (digits: string, doubleFirst: boolean): number => {
  let sum = 0
  let double = doubleFirst
  for (let index = digits.length - 1; index >= 0; index--) {
    let digit = digits.charCodeAt(index) - 48
    if (double) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
    double = !double
  }
  return sum
}
