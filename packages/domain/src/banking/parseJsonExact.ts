import { Result } from "effect"
import { JsonNumber, MAX_NUMBER_LENGTH, numberOutOfBounds } from "../money/index.ts"
import { decodeUtf8 } from "../text/Utf8.ts"

// A double holds every decimal of at most 15 significant digits exactly enough that its shortest
// text (`String(n)`) has the same value (IEEE 754's DBL_DIG is 15). Counting every digit, leading
// zeros included, errs on the safe side.
const DOUBLE_SAFE_DIGITS = 15

/**
 * Deepest nesting read. No provider payload comes near it, and both parse paths must agree: the
 * reviver's recursion would otherwise refuse a few thousand levels while the plain path accepted
 * a hundred thousand, depending on which path an unrelated number chose.
 */
export const MAX_JSON_DEPTH = 512

interface Scan {
  /** Every number token (outside strings) is plain decimal, no exponent, of at most 15 digits. */
  readonly numbersFitDoubles: boolean
  /** The deepest nesting of arrays and objects. */
  readonly depth: number
  /** Why the first number past `MAX_NUMBER_LENGTH` or `MAX_NUMBER_EXPONENT` is refused, if one is. */
  readonly numberTooBig: string | undefined
}

/**
 * Where the string opened by the quote at `opening` ends: its closing quote, or `text.length` when
 * it never closes (invalid JSON, which the parse refuses).
 */
const closingQuote = (text: string, opening: number): number => {
  for (let quote = text.indexOf('"', opening + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    // Counting back stops at the opening quote at the latest.
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c /* \ */) backslashes++
    if (backslashes % 2 === 0) return quote
  }
  return text.length
}

/**
 * One pass over `text`, outside strings: whether `JSON.parse`'s doubles would lose nothing, how
 * deep the nesting goes, and whether a number is too long or too large to read at all. Invalid JSON
 * may give any answer; the parse that follows refuses it.
 */
const scan = (text: string): Scan => {
  const length = text.length
  let numbersFitDoubles = true
  let depth = 0
  let deepest = 0
  let numberTooBig: string | undefined
  for (let at = 0; at < length; at++) {
    const code = text.charCodeAt(at)
    if (code === 0x22 /* " */) {
      // Skip the string. Strings are most of a payload's text, and `indexOf` finds the next quote
      // several times faster than a loop over each character; that quote closes the string unless
      // an odd number of backslashes escapes it.
      at = closingQuote(text, at)
    } else if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      depth++
      if (depth > deepest) deepest = depth
    } else if (code === 0x5d /* ] */ || code === 0x7d /* } */) {
      depth--
    } else if (code === 0x2d /* - */ || (code >= 0x30 && code <= 0x39)) {
      const start = at
      let digits = 0
      let exponent = false
      for (; at < length; at++) {
        const inner = text.charCodeAt(at)
        if (inner >= 0x30 && inner <= 0x39) digits++
        else if (inner === 0x65 /* e */ || inner === 0x45 /* E */) exponent = true
        else if (inner !== 0x2e /* . */ && inner !== 0x2d && inner !== 0x2b /* + */) break
      }
      if (exponent || digits > DOUBLE_SAFE_DIGITS) {
        numbersFitDoubles = false
        // Only such a token can break a bound; the slice is then at most one past the length bound.
        numberTooBig ??= numberOutOfBounds(text.slice(start, Math.min(at, start + MAX_NUMBER_LENGTH + 1)))
      }
      at--
    }
  }
  return { numbersFitDoubles, depth: deepest, numberTooBig }
}

/**
 * Replaces each number inside a `JSON.parse` result by a `JsonNumber` of its shortest text, in
 * place and without recursion. False when a number would print
 * with an exponent (below 1e-6), which `numbersFitDoubles` cannot rule out: the caller then
 * takes the exact path.
 */
const numbersToJsonNumbers = (root: unknown): boolean => {
  const pending: Array<Record<string, unknown> | Array<unknown>> = []
  if (typeof root === "object" && root !== null) pending.push(root as Record<string, unknown>)
  for (let container = pending.pop(); container !== undefined; container = pending.pop()) {
    for (const key of Object.keys(container)) {
      const value = (container as Record<string, unknown>)[key]
      if (typeof value === "number") {
        const text = String(value)
        if (text.includes("e")) return false
        ;(container as Record<string, unknown>)[key] = new JsonNumber(text)
      } else if (typeof value === "object" && value !== null) {
        pending.push(value as Record<string, unknown>)
      }
    }
  }
  return true
}

/**
 * The exact path: the reviver hands each number's source text (`context.source`, Node 21+) and
 * sees every string value, so a NUL is found wherever the escapes put it.
 */
const parseWithSources = (text: string): Result.Result<unknown, string> => {
  let nul = false
  const parsed: unknown = JSON.parse(text, (_key: string, value: unknown, context?: { readonly source?: string }) => {
    if (typeof value === "string" && value.includes("\u0000")) nul = true
    return typeof value === "number" && context?.source !== undefined ? new JsonNumber(context.source) : value
  })
  // No text column can hold NUL (PostgreSQL refuses it), and no honest field carries one.
  return nul ? Result.fail("strings must not contain NUL characters") : Result.succeed(parsed)
}

/**
 * `JSON.parse` that never rounds a number: each JSON number arrives as a `JsonNumber` whose text
 * has exactly the value written, which `DecimalAmount` reads as a decimal, so
 * `12345678901234567890.12` stays what the provider sent.
 *
 * Two paths, one result. A reviver costs about four times the parse itself, so a body whose
 * numbers all fit a double (every real provider payload) is parsed plainly and its numbers written
 * back as text; only a body with a long or exponent number pays for the reviver. The fast path may
 * shorten the text ("4950.50" becomes "4950.5"), never the value.
 */
export const parseJsonExact = (bytes: Uint8Array): Result.Result<unknown, string> => {
  const text = decodeUtf8(bytes)
  if (text === undefined) return Result.fail("the body is not valid UTF-8")
  const { numbersFitDoubles, depth, numberTooBig } = scan(text)
  if (depth > MAX_JSON_DEPTH) return Result.fail(`the body nests deeper than ${MAX_JSON_DEPTH} levels`)
  // Before any parse: reading a 100,000-digit number, or carrying `1e999999999` to where its
  // scale is used, costs time a provider's payload never needs.
  if (numberTooBig !== undefined) return Result.fail(numberTooBig)
  try {
    // Valid JSON can only spell NUL as an escape: a body without one cannot hold it, and takes the
    // fast path when its numbers allow.
    if (numbersFitDoubles && !text.includes("\\u0000")) {
      const parsed: unknown = JSON.parse(text)
      if (typeof parsed === "number") {
        const shortest = String(parsed)
        if (!shortest.includes("e")) return Result.succeed(new JsonNumber(shortest))
      } else if (numbersToJsonNumbers(parsed)) {
        return Result.succeed(parsed)
      }
    }
    return parseWithSources(text)
  } catch {
    // The parser's own message (positions, stack depth) says nothing useful to the provider.
    return Result.fail("invalid JSON")
  }
}
