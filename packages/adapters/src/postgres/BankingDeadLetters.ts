import { type DeadLetter, DeadLetters, type ListingPosition } from "@payments-gaming/domain/banking"
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"

const LetterRow = Schema.Struct({
  id: Schema.String,
  raw_body: Schema.Uint8Array,
  signature: Schema.String,
  received_at: Schema.Date,
  error: Schema.String
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(LetterRow))

const toLetter = (row: typeof LetterRow.Type): DeadLetter => ({
  id: row.id,
  rawBody: row.raw_body,
  signature: row.signature,
  receivedAt: row.received_at,
  error: row.error
})

/** Dead letters on PostgreSQL: written outside any business transaction, so they survive its failure. */
export const layer = Layer.effect(
  DeadLetters,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const add = Effect.fnUntraced(function* (letter: {
      readonly rawBody: Uint8Array
      readonly signature: string
      readonly receivedAt: Date
      readonly error: string
    }) {
      const rows = yield* decodeRows(
        yield* sql`INSERT INTO webhook_dead_letters (raw_body, signature, received_at, error)
          VALUES (${letter.rawBody}, ${letter.signature}, ${letter.receivedAt}, ${letter.error})
          RETURNING id, raw_body, signature, received_at, error`
      )
      return toLetter(rows[0]!)
    }, Effect.orDie)

    const list = Effect.fnUntraced(function* (page: { readonly limit: number; readonly offset: number }) {
      const rows = yield* decodeRows(
        yield* sql`SELECT id, raw_body, signature, received_at, error FROM webhook_dead_letters
          ORDER BY received_at DESC, created_at DESC LIMIT ${page.limit} OFFSET ${page.offset}`
      )
      return rows.map(toLetter)
    }, Effect.orDie)

    // Keyset on (received_at, id), descending, on the index of migration 0011.
    const listPage = Effect.fnUntraced(function* (page: {
      readonly after?: ListingPosition | undefined
      readonly limit: number
    }) {
      const after = page.after
      const rows = yield* decodeRows(
        after === undefined
          ? yield* sql`SELECT id, raw_body, signature, received_at, error FROM webhook_dead_letters
              ORDER BY received_at DESC, id DESC LIMIT ${page.limit}`
          : yield* sql`SELECT id, raw_body, signature, received_at, error FROM webhook_dead_letters
              WHERE (received_at, id) < (${after.receivedAt}, ${after.id}::uuid)
              ORDER BY received_at DESC, id DESC LIMIT ${page.limit}`
      )
      return rows.map(toLetter)
    }, Effect.orDie)

    return DeadLetters.of({ add, list, listPage })
  })
)
