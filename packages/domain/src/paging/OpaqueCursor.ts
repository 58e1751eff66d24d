import { Effect, Result, Schema, SchemaIssue, SchemaTransformation } from "effect"
import { Base64Url } from "effect/encoding"

/** Longer than any position we hand out; refused before it is even decoded. */
const MAX_CURSOR_LENGTH = 128

const invalid = "an opaque cursor from a previous page's nextCursor"

/**
 * The `cursor` of a keyset listing: base64url of a position's text. Opaque to clients (they pass
 * back what `nextCursor` gave them), so the position can change shape without a contract change;
 * anything that does not decode to a position is refused as one schema issue (a 400 at the edge).
 *
 * `position` is the decoded shape (its checks run after `parse`); `parse` reads the inner text
 * (undefined: not a position), `format` writes it. Every newest-first listing pages with one of
 * these, never with an offset: banking's `ListingCursor`. (The ledger's statement seals its
 * positions with a key instead: `ledger/StatementIds.ts`.)
 */
export const opaqueCursor = <Position extends Schema.Top>(
  position: Position,
  text: {
    readonly parse: (text: string) => Position["Encoded"] | undefined
    readonly format: (position: Position["Encoded"]) => string
  }
) =>
  Schema.String.pipe(
    Schema.decodeTo(
      position,
      SchemaTransformation.transformEffect<Position["Encoded"], string>({
        decode: (cursor, options) => {
          const decoded = cursor.length > MAX_CURSOR_LENGTH ? undefined : Base64Url.decodeString(cursor)
          const parsed = decoded === undefined || Result.isFailure(decoded) ? undefined : text.parse(decoded.success)
          return parsed === undefined
            ? Effect.fail(new SchemaIssue.InvalidValue({ expected: invalid }, cursor, options))
            : Effect.succeed(parsed)
        },
        encode: (value) => Effect.succeed(Base64Url.encode(text.format(value)))
      })
    )
  )
