import type { UserId } from "@payments-gaming/domain/auth"
import {
  type Card,
  CardBrand,
  CardId,
  CardLimitReached,
  CardNotFound,
  type CardPage,
  CardRepository,
  type CardToStore,
  DuplicateCard,
  maskFromStored
} from "@payments-gaming/domain/cards"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { rowSchema } from "./RowSchema.ts"

/**
 * A row of `cards` as `columns` below selects it: keyed as the domain names them by the query's
 * aliases (smallint as a number, timestamptz as a Date).
 */
const CardRow = rowSchema(
  Schema.Struct({
    id: CardId,
    cardholderName: Schema.String,
    brand: CardBrand,
    firstDigits: Schema.String,
    last4: Schema.String,
    expiryMonth: Schema.Int,
    expiryYear: Schema.Int,
    createdAt: Schema.DateTimeUtcFromDate
  }),
  (row): Card => ({
    cardId: row.id,
    cardholderName: row.cardholderName,
    brand: row.brand,
    last4: row.last4,
    maskedNumber: maskFromStored(row.firstDigits, row.last4),
    expiryMonth: row.expiryMonth,
    expiryYear: row.expiryYear,
    createdAt: row.createdAt
  })
)

/**
 * `CardRepository` on PostgreSQL (tables `card_holders` and `cards`, migration `0003_cards`).
 *
 * Every change to a user's cards takes that user's `card_holders` row lock first, in one
 * transaction with the change: inserts and deletes of one user run one at a time, so the duplicate
 * check, the limit check and `active_cards` always see the latest committed state. The partial
 * unique index on (user_id, fingerprint) is the duplicate check itself. Because `active_cards` is
 * updated (not only read) under the lock, the limit holds at any isolation level: under REPEATABLE
 * READ or SERIALIZABLE a racing insert fails to serialise rather than overshoot.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const columns = sql.literal(`id, cardholder_name AS "cardholderName", brand, first_digits AS "firstDigits", last4,
    expiry_month AS "expiryMonth", expiry_year AS "expiryYear", created_at AS "createdAt"`)

  const insertCard = SqlSchema.findOneOption({
    Request: Schema.Struct({
      userId: Schema.String,
      brand: Schema.String,
      firstDigits: Schema.String,
      last4: Schema.String,
      fingerprint: Schema.String,
      cardholderName: Schema.String,
      expiryMonth: Schema.Number,
      expiryYear: Schema.Number,
      createdAt: Schema.DateTimeUtcFromDate
    }),
    Result: CardRow,
    // No row back when the user already has an active card with this fingerprint: the partial unique
    // index answers the duplicate check, and DO NOTHING keeps the transaction usable (no error).
    execute: (card) => sql`INSERT INTO cards (user_id, brand, first_digits, last4, fingerprint, cardholder_name,
              expiry_month, expiry_year, created_at)
            VALUES (${card.userId}, ${card.brand}, ${card.firstDigits}, ${card.last4}, ${card.fingerprint},
              ${card.cardholderName}, ${card.expiryMonth}, ${card.expiryYear}, ${card.createdAt})
            ON CONFLICT (user_id, fingerprint) WHERE deleted_at IS NULL DO NOTHING
            RETURNING ${columns}`
  })

  const activeCardsOf = SqlSchema.findAll({
    Request: Schema.Struct({ userId: Schema.String, limit: Schema.Number, offset: Schema.Number }),
    Result: CardRow,
    execute: ({
      userId,
      limit,
      offset
    }) => sql`SELECT ${columns} FROM cards WHERE user_id = ${userId} AND deleted_at IS NULL
        ORDER BY created_at, id LIMIT ${limit} OFFSET ${offset}`
  })

  /**
   * Locks the user's holder row (creating it on first use) and counts the card about to be added, in
   * one statement: an upsert locks the row it inserts or updates as `SELECT … FOR UPDATE` would, and
   * sees the latest committed `active_cards`. No row comes back when the user is at the limit (the
   * row is locked all the same). A first card inserts the row with its count already at 1, if the
   * limit allows one card. The increment is undone with the transaction when the card is refused.
   */
  const claimSlot = (userId: UserId, maxActiveCards: number) =>
    sql<{ readonly activeCards: number }>`INSERT INTO card_holders (user_id, active_cards)
      SELECT ${userId}, 1 WHERE ${maxActiveCards} >= 1
      ON CONFLICT (user_id) DO UPDATE SET active_cards = card_holders.active_cards + 1
        WHERE card_holders.active_cards < ${maxActiveCards}
      RETURNING active_cards AS "activeCards"`

  const hasActive = (userId: UserId, fingerprint: string) =>
    Effect.map(
      sql`SELECT 1 FROM cards WHERE user_id = ${userId} AND fingerprint = ${fingerprint} AND deleted_at IS NULL`,
      (rows) => rows.length > 0
    )

  // Four statements when the card is added (BEGIN, the slot, the card, COMMIT) where there were seven
  // (the holder row created if missing, then locked and counted, a duplicate lookup, the card, the
  // increment): each statement is a round trip and a socket write (issue 16). The guarantees are the same ones: the holder row lock serialises one user's
  // changes, the unique index refuses a duplicate, and a refused card rolls its increment back.
  const insert = Effect.fnUntraced(
    function* (userId: UserId, card: CardToStore, options: { readonly maxActiveCards: number }) {
      return yield* sql.withTransaction(
        Effect.gen(function* () {
          const slot = yield* claimSlot(userId, options.maxActiveCards)
          if (slot.length === 0) {
            // At the limit a duplicate is still reported as one, as it is below the limit.
            if (yield* hasActive(userId, card.fingerprint)) return yield* new DuplicateCard()
            return yield* new CardLimitReached({ limit: options.maxActiveCards })
          }
          const created = yield* insertCard({ ...card, userId })
          if (Option.isNone(created)) return yield* new DuplicateCard()
          return created.value
        })
      )
    },
    Effect.catchTags({ SqlError: Effect.die, SchemaError: Effect.die })
  )

  // Counted from the cards themselves, so tests can hold `active_cards` against it.
  const countActive = Effect.fnUntraced(function* (userId: UserId) {
    const [row] = yield* sql<{ readonly count: number }>`SELECT count(*)::int AS count FROM cards
        WHERE user_id = ${userId} AND deleted_at IS NULL`
    return row?.count ?? 0
  }, Effect.orDie)

  const listByUser = (userId: UserId, { limit, offset }: CardPage) =>
    activeCardsOf({ userId, limit, offset }).pipe(Effect.orDie)

  const softDelete = Effect.fnUntraced(
    function* (userId: UserId, cardId: CardId) {
      yield* sql.withTransaction(
        Effect.gen(function* () {
          const [holder] = yield* sql`SELECT 1 FROM card_holders WHERE user_id = ${userId} FOR UPDATE`
          if (holder === undefined) return yield* new CardNotFound({ cardId })
          const deleted = yield* sql`UPDATE cards SET deleted_at = now()
            WHERE id = ${cardId} AND user_id = ${userId} AND deleted_at IS NULL RETURNING id`
          if (deleted.length === 0) return yield* new CardNotFound({ cardId })
          yield* sql`UPDATE card_holders SET active_cards = active_cards - 1 WHERE user_id = ${userId}`
        })
      )
    },
    Effect.catchTag("SqlError", Effect.die)
  )

  return CardRepository.of({ insert, countActive, listByUser, softDelete })
})

/** Needs a `SqlClient` on a database migrated through `0003_cards`. */
export const layer: Layer.Layer<CardRepository, never, SqlClient.SqlClient> = Layer.effect(CardRepository, make)
