import { Schema } from "effect"

/**
 * Text that is well-formed UTF-16: no lone surrogate (`"\ud800"`, valid JSON). PostgreSQL and every
 * UTF-8 encoder would store one as U+FFFD, so two different inputs could become one stored value,
 * and what was stored would not be what was sent. Used by every field that keeps free text
 * (references, cardholder names); the HTTP body guard refuses such bodies before any field is read.
 */
export const wellFormed = Schema.makeFilter(
  (text: string) => text.isWellFormed() || "must not hold a lone surrogate (\\uD800-\\uDFFF)"
)

/**
 * Text without a NUL, which PostgreSQL text cannot hold: refused as input (400) rather than failing
 * as a database error deep in a use case (500). The body guard refuses NUL in bodies; this is for
 * text that arrives elsewhere, such as a query parameter.
 */
export const withoutNul = Schema.makeFilter(
  (text: string) => !text.includes("\u0000") || "must not contain a NUL character"
)
