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

/** Parses plain decimal text ("2500", "-0.50"); no exponent, no "+", no blanks, not empty. */
export const parseDecimal = (text: string): Option.Option<BigDecimal.BigDecimal> =>
  decimalPattern.test(text) ? BigDecimal.fromString(text) : Option.none()

/**
 * A plain `number` is read through its shortest round-trip text (`String(n)`): exactly what the
 * sender wrote whenever it had at most 15 significant digits, so nothing is lost for any money
 * amount; digits beyond that were already lost by whoever called `JSON.parse`.
 */
const fromNumber = (n: number) => BigDecimal.fromNumber(n)

const DecimalText = Schema.String.check(
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
  { expected: "a number or a numeric string" }
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
