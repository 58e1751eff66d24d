import { BigDecimal, Effect, Option, Schema, SchemaIssue, SchemaTransformation } from "effect"

/**
 * A JSON number as the text it was written with. `JSON.parse` turns `1500.50` into a float; a
 * parser that keeps the source text (`parseJsonExact` in the banking area) hands this instead, so
 * amounts beyond a float's 15–17 significant digits stay exact.
 */
export class JsonNumber {
  readonly source: string
  constructor(source: string) {
    this.source = source
  }
}

const decimalPattern = /^-?\d+(\.\d+)?$/

/**
 * Longest numeric literal read, sign, point and exponent included. Money needs about 25 characters
 * (a bigint of minor units and its scale); a 100,000-digit literal only costs time to read.
 */
export const MAX_NUMBER_LENGTH = 64

/**
 * Largest exponent magnitude read. `1e999999999` is eleven characters, but comparing it or
 * converting it to minor units computes 10^999999999 (BigDecimal aligns scales with a bigint power
 * of ten): a bound on the length alone does not bound the work.
 */
export const MAX_NUMBER_EXPONENT = 64

/**
 * Why a numeric literal is refused before it is parsed, or undefined when it is within both bounds.
 * O(1) past the length check: the exponent read is at most `MAX_NUMBER_LENGTH` characters. Says
 * nothing of whether the text is a number; the parse that follows decides that.
 */
export const numberOutOfBounds = (text: string): string | undefined => {
  if (text.length > MAX_NUMBER_LENGTH) return `a number may have at most ${MAX_NUMBER_LENGTH} characters`
  const marker = text.search(/[eE]/)
  if (marker === -1) return undefined
  // Number() reads "+5", "-0007" and "5"; anything else is NaN, refused here and invalid anyway.
  const exponent = Number(text.slice(marker + 1))
  return Math.abs(exponent) <= MAX_NUMBER_EXPONENT
    ? undefined
    : `a number's exponent may be at most ${MAX_NUMBER_EXPONENT} in magnitude`
}

/**
 * Parses plain decimal text ("2500", "-0.50"); no exponent, no "+", no blanks, not empty, at most
 * `MAX_NUMBER_LENGTH` characters.
 */
export const parseDecimal = (text: string): Option.Option<BigDecimal.BigDecimal> =>
  text.length <= MAX_NUMBER_LENGTH && decimalPattern.test(text) ? BigDecimal.fromString(text) : Option.none()

/**
 * A plain `number` is read through its shortest round-trip text (`String(n)`): exactly what the
 * sender wrote whenever it had at most 15 significant digits, so nothing is lost for any money
 * amount; digits beyond that were already lost by whoever called `JSON.parse`.
 */
const fromNumber = (n: number) => BigDecimal.fromNumber(n)

const DecimalText = Schema.String.check(
  Schema.isMaxLength(MAX_NUMBER_LENGTH),
  Schema.isPattern(decimalPattern, { expected: "a decimal number such as 2500.00" })
)

/**
 * An exact decimal from a JSON number or a numeric string: `1500.5` and `"1500.50"` both decode to
 * BigDecimal 1500.5. For request bodies the HTTP layer has already parsed (`POST /v1/admin/transfers`).
 */
export const DecimalAmount = Schema.Union([Schema.Finite, DecimalText]).pipe(
  Schema.decodeTo(
    Schema.BigDecimal,
    SchemaTransformation.transform({
      decode: (input) => Option.getOrThrow(typeof input === "number" ? fromNumber(input) : parseDecimal(input)),
      encode: (amount) => BigDecimal.format(amount)
    })
  )
)

const AmountInput = Schema.declare(
  (input: unknown): input is number | string | JsonNumber =>
    typeof input === "number" || typeof input === "string" || input instanceof JsonNumber,
  {
    expected: "a number or a numeric string",
    // In JSON (what an OpenAPI document describes) an amount is a number or decimal text; without this
    // link a declaration is documented as `{}`, any value at all. The exact reader never goes through it.
    toCodecJson: () =>
      Schema.link<number | string | JsonNumber>()(
        Schema.Union([Schema.Finite, DecimalText]),
        SchemaTransformation.transform<number | string | JsonNumber, number | string>({
          decode: (input) => input,
          // Never reached in practice: an amount is encoded from its BigDecimal, as text.
          encode: (input) => (input instanceof JsonNumber ? input.source : input)
        })
      )
  }
)

/**
 * `DecimalAmount` that also takes a `JsonNumber`, read from its source text: the webhook decodes
 * bodies parsed with `parseJsonExact`, so no amount it reads has ever been a float.
 */
export const ExactDecimalAmount = AmountInput.pipe(
  Schema.decodeTo(
    Schema.BigDecimal,
    SchemaTransformation.transformEffect({
      decode: (input, options) => {
        // The bounds first: the source text came straight from the body, unread.
        const text = typeof input === "number" ? undefined : typeof input === "string" ? input : input.source
        const tooBig = text === undefined ? undefined : numberOutOfBounds(text)
        if (tooBig !== undefined) {
          return Effect.fail(new SchemaIssue.InvalidValue({ message: tooBig }, input, options))
        }
        const parsed =
          typeof input === "number"
            ? fromNumber(input)
            : typeof input === "string"
              ? parseDecimal(input)
              : BigDecimal.fromString(input.source)
        return Option.match(parsed, {
          onNone: () =>
            Effect.fail(new SchemaIssue.InvalidValue({ expected: "a decimal number such as 2500.00" }, input, options)),
          onSome: Effect.succeed
        })
      },
      encode: (amount) => Effect.succeed(BigDecimal.format(amount))
    })
  )
)
