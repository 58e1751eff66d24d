import { Schema } from "effect"

// Plain decimal digits only: NumberFromString alone would also take "1e2", "0x10", "+5" and " 5".
const IntFromString = (name: string, min: number, max: number) =>
  Schema.String.check(Schema.isPattern(/^\d{1,15}$/, { message: `${name} must be a non-negative integer` }))
    .pipe(Schema.decodeTo(Schema.NumberFromString))
    .check(
      Schema.isInt({ message: `${name} must be an integer` }),
      Schema.isBetween({ minimum: min, maximum: max }, { message: `${name} must be between ${min} and ${max}` })
    )

const LIMIT = { minimum: 1, maximum: 200, default: 50 }
const OFFSET = { minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }

/** `limit` (default 50, at most 200) and `offset` (default 0) of every list (CONTRACT §2). */
export const PageQuery = {
  limit: Schema.optionalKey(IntFromString("limit", LIMIT.minimum, LIMIT.maximum)),
  offset: Schema.optionalKey(IntFromString("offset", OFFSET.minimum, OFFSET.maximum))
}

/**
 * The query parameters above as the OpenAPI document types them: integers, as a client sends them
 * (`?limit=10`). Their schemas decode the query's text, so the generated document would say string.
 */
export const INTEGER_QUERY: Readonly<Record<string, { minimum: number; maximum: number; default: number }>> = {
  limit: LIMIT,
  offset: OFFSET
}

export const pageOf = (query: { readonly limit?: number; readonly offset?: number }) => ({
  limit: query.limit ?? LIMIT.default,
  offset: query.offset ?? OFFSET.default
})
