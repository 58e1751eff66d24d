/**
 * What of a card number survives the request, and how it is shown (CONTRACT §3).
 *
 * Kept: the issuer prefix and the last four digits, never more than PCI DSS allows for display
 * (requirement 3.4.1: at most the BIN and the last four). The prefix is the first 8 digits for
 * numbers of 16 digits or more (8-digit BINs, ISO/IEC 7812-1:2017) and the first 6 for shorter ones.
 * That is exactly what the mask shows, so the mask is rebuilt from what is stored and the stored
 * prefix never reveals more than the mask does:
 *
 * | length | stored prefix | example number        | mask                  | hidden digits |
 * |--------|---------------|-----------------------|-----------------------|---------------|
 * | 12     | 6             | 501800000009          | `5018 00** **** 0009` | 2             |
 * | 15     | 6             | 378282246310005       | `3782 82** **** 0005` | 5             |
 * | 16     | 8             | 5399831234561237      | `5399 8312 **** 1237` | 4             |
 * | 19     | 8             | 5061460410120223210   | `5061 4604 **** 3210` | 7             |
 *
 * `****` always stands for the hidden middle, however many digits that is, so the mask has four
 * groups whatever the length and does not give the length away.
 */

/** How many leading digits are kept for a card number of `length` digits. */
export const storedPrefixLength = (length: number): 6 | 8 => (length >= 16 ? 8 : 6)

/** The leading digits kept for `digits` (6 or 8 of them; see {@link storedPrefixLength}). */
export const storedPrefix = (digits: string): string => digits.slice(0, storedPrefixLength(digits.length))

/** The last four digits. */
export const lastFour = (digits: string): string => digits.slice(-4)

/** The display mask rebuilt from the stored prefix (6 or 8 digits) and the last four digits. */
export const maskFromStored = (prefix: string, last4: string): string =>
  prefix.length >= 8
    ? `${prefix.slice(0, 4)} ${prefix.slice(4, 8)} **** ${last4}`
    : `${prefix.slice(0, 4)} ${prefix.slice(4, 6)}** **** ${last4}`

/** The display mask of a full card number. */
export const maskCardNumber = (digits: string): string => maskFromStored(storedPrefix(digits), lastFour(digits))
