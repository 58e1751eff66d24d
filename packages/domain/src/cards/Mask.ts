/**
 * What of a card number survives the request, and how it is shown (CONTRACT §3).
 *
 * The mask has four groups: digits 1–4, digits 5–8, `****`, the last four. A number shorter than
 * 16 digits hides both middle groups, so that no short number is shown nearly whole (a 12-digit
 * number with 8 + 4 shown would have nothing hidden at all). Exactly the digits the mask shows are
 * kept, and nothing else: the first 8 (16 digits or more) or the first 4 (fewer), and the last 4.
 * {@link visiblePrefixLength} is the one rule for both, so the stored prefix can never reveal more
 * than the mask does, and the mask is rebuilt from what is stored:
 *
 * | length | visible prefix | example number        | mask                  | hidden digits |
 * |--------|----------------|-----------------------|-----------------------|---------------|
 * | 12     | 4              | 501800000009          | `5018 **** **** 0009` | 4             |
 * | 15     | 4              | 378282246310005       | `3782 **** **** 0005` | 7             |
 * | 16     | 8              | 5399831234561237      | `5399 8312 **** 1237` | 4             |
 * | 19     | 8              | 5061460410120223210   | `5061 4604 **** 3210` | 7             |
 *
 * `****` always stands for the hidden digits, however many, so the mask has four groups whatever
 * the length and gives the length away only as "16 or more" or "fewer".
 */

/** How many leading digits of a card number of `length` digits are shown, and therefore stored. */
export const visiblePrefixLength = (length: number): 4 | 8 => (length >= 16 ? 8 : 4)

/** The leading digits shown and kept for `digits` (4 or 8 of them; see {@link visiblePrefixLength}). */
export const storedPrefix = (digits: string): string => digits.slice(0, visiblePrefixLength(digits.length))

/** The last four digits. */
export const lastFour = (digits: string): string => digits.slice(-4)

/**
 * The display mask rebuilt from the stored prefix (4 or 8 digits) and the last four digits. A
 * prefix of 8 means the number had 16 digits or more; anything shorter shows its first 4 only.
 */
export const maskFromStored = (prefix: string, last4: string): string =>
  prefix.length >= 8
    ? `${prefix.slice(0, 4)} ${prefix.slice(4, 8)} **** ${last4}`
    : `${prefix.slice(0, 4)} **** **** ${last4}`

/** The display mask of a full card number. */
export const maskCardNumber = (digits: string): string => maskFromStored(storedPrefix(digits), lastFour(digits))
