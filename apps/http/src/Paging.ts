import { Schema } from "effect"

// Plain decimal digits only: NumberFromString alone would also take "1e2", "0x10", "+5" and " 5".
const IntFromString = (name: string, min: number, max: number) =>
  Schema.String.check(Schema.isPattern(/^\d{1,15}$/, { message: `${name} must be a non-negative integer` }))
    .pipe(Schema.decodeTo(Schema.NumberFromString))
    .check(
      Schema.isInt({ message: `${name} must be an integer` }),
      Schema.isBetween({ minimum: min, maximum: max }, { message: `${name} must be between ${min} and ${max}` })
    )

/** `limit` (default 50, at most 200) and `offset` (default 0) of every list (CONTRACT §2). */
export const PageQuery = {
  limit: Schema.optionalKey(IntFromString("limit", 1, 200)),
  offset: Schema.optionalKey(IntFromString("offset", 0, Number.MAX_SAFE_INTEGER))
}

export const pageOf = (query: { readonly limit?: number; readonly offset?: number }) => ({
  limit: query.limit ?? 50,
  offset: query.offset ?? 0
})
