import { Effect, Option, Schema } from "effect"
import { UsageError } from "./Runtime.ts"

/**
 * A flag's value decoded by the schema the service itself uses, or bad usage told as one sentence
 * about the flag (`--currency: an ISO 4217 code …`), never a schema's dump of every literal and path.
 */
export const decodeFlag = <S extends Schema.Decoder<unknown>>(
  schema: S,
  value: string,
  flag: string,
  expected: string
): Effect.Effect<S["Type"], UsageError, S["DecodingServices"]> =>
  Schema.decodeUnknownEffect(schema)(value).pipe(
    Effect.mapError(() => new UsageError({ message: `${flag}: expected ${expected}, got ${JSON.stringify(value)}` }))
  )

/** `decodeFlag` for a flag that may be absent. */
export const decodeOptionalFlag = <S extends Schema.Decoder<unknown>>(
  schema: S,
  value: Option.Option<string>,
  flag: string,
  expected: string
): Effect.Effect<S["Type"] | undefined, UsageError, S["DecodingServices"]> =>
  Option.isNone(value) ? Effect.undefined : decodeFlag(schema, value.value, flag, expected)

/** `--limit` of a listing: 1 to 200, as the service pages (CONTRACT §2), or bad usage. */
export const checkPageLimit = (limit: number): Effect.Effect<void, UsageError> =>
  Number.isInteger(limit) && limit >= 1 && limit <= 200
    ? Effect.void
    : Effect.fail(new UsageError({ message: `--limit ${limit}: must be 1 to 200` }))
