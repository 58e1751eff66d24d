import { type DeadLetter, DeadLetters, type ListingPosition } from "@payments-gaming/domain/banking"
import { Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { rowSchema } from "./RowSchema.ts"

/** A `webhook_dead_letters` row as read (`created_at` is not). */
const DeadLetterRow = rowSchema(
  Schema.Struct({
    id: Schema.String,
    raw_body: Schema.Uint8Array,
    signature: Schema.String,
    received_at: Schema.Date,
    error: Schema.String
  }),
  (row): DeadLetter => ({
    id: row.id,
    rawBody: row.raw_body,
    signature: row.signature,
    receivedAt: row.received_at,
    error: row.error
  })
)

/** Dead letters on PostgreSQL: written outside any business transaction, so they survive its failure. */
export const layer = Layer.effect(
  DeadLetters,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = SqlSchema.findOne({
      Request: Schema.Struct({
        rawBody: Schema.Uint8Array,
        signature: Schema.String,
        receivedAt: Schema.Date,
        error: Schema.String
      }),
      Result: DeadLetterRow,
      execute: (letter) => sql`INSERT INTO webhook_dead_letters (raw_body, signature, received_at, error)
          VALUES (${letter.rawBody}, ${letter.signature}, ${letter.receivedAt}, ${letter.error})
          RETURNING id, raw_body, signature, received_at, error`
    })

    const listByOffset = SqlSchema.findAll({
      Request: Schema.Struct({ limit: Schema.Number, offset: Schema.Number }),
      Result: DeadLetterRow,
      execute: (page) => sql`SELECT id, raw_body, signature, received_at, error FROM webhook_dead_letters
          ORDER BY received_at DESC, created_at DESC LIMIT ${page.limit} OFFSET ${page.offset}`
    })

    // Keyset on (received_at, id), descending, on the index of migration 0011.
    const listByPosition = SqlSchema.findAll({
      Request: Schema.Struct({
        after: Schema.optional(Schema.Struct({ receivedAt: Schema.Date, id: Schema.String })),
        limit: Schema.Number
      }),
      Result: DeadLetterRow,
      execute: ({ after, limit }) =>
        after === undefined
          ? sql`SELECT id, raw_body, signature, received_at, error FROM webhook_dead_letters
              ORDER BY received_at DESC, id DESC LIMIT ${limit}`
          : sql`SELECT id, raw_body, signature, received_at, error FROM webhook_dead_letters
              WHERE (received_at, id) < (${after.receivedAt}, ${after.id}::uuid)
              ORDER BY received_at DESC, id DESC LIMIT ${limit}`
    })

    const add = (letter: {
      readonly rawBody: Uint8Array
      readonly signature: string
      readonly receivedAt: Date
      readonly error: string
    }) => insert(letter).pipe(Effect.orDie)

    const list = (page: { readonly limit: number; readonly offset: number }) => listByOffset(page).pipe(Effect.orDie)

    const listPage = (page: { readonly after?: ListingPosition | undefined; readonly limit: number }) =>
      listByPosition(page).pipe(Effect.orDie)

    return DeadLetters.of({ add, list, listPage })
  })
)
