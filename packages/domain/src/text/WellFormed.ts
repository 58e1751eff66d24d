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
