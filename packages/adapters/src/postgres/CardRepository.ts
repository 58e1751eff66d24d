import type { UserId } from "@payments-gaming/domain/auth"
import {
  Card,
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
import { Effect, Layer, Schema } from "effect"
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
  (row) =>
    new Card({
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
 * unique index on (user_id, fingerprint) stands behind the duplicate check whatever happens. Because
 * `active_cards` is updated (not only read) under the lock, the limit holds at any isolation level:
 * under REPEATABLE READ or SERIALIZABLE a racing insert fails to serialise rather than overshoot.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const columns = sql.literal(`id, cardholder_name AS "cardholderName", brand, first_digits AS "firstDigits", last4,
    expiry_month AS "expiryMonth", expiry_year AS "expiryYear", created_at AS "createdAt"`)

  const insertCard = SqlSchema.findOne({
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
    execute: (card) => sql`INSERT INTO cards (user_id, brand, first_digits, last4, fingerprint, cardholder_name,
              expiry_month, expiry_year, created_at)
            VALUES (${card.userId}, ${card.brand}, ${card.firstDigits}, ${card.last4}, ${card.fingerprint},
              ${card.cardholderName}, ${card.expiryMonth}, ${card.expiryYear}, ${card.createdAt})
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

  /** Locks the user's holder row (creating it on first use) and gives their active card count. */
  const lockHolder = (userId: UserId) =>
    Effect.gen(function* () {
      yield* sql`INSERT INTO card_holders (user_id) VALUES (${userId}) ON CONFLICT (user_id) DO NOTHING`
      const [holder] = yield* sql<{
        readonly activeCards: number
      }>`SELECT active_cards AS "activeCards" FROM card_holders WHERE user_id = ${userId} FOR UPDATE`
      return holder?.activeCards ?? 0
    })

  const insert = Effect.fnUntraced(
    function* (userId: UserId, card: CardToStore, options: { readonly maxActiveCards: number }) {
      return yield* sql.withTransaction(
        Effect.gen(function* () {
          const active = yield* lockHolder(userId)
          const existing = yield* sql`SELECT 1 FROM cards
            WHERE user_id = ${userId} AND fingerprint = ${card.fingerprint} AND deleted_at IS NULL`
          if (existing.length > 0) return yield* new DuplicateCard()
          if (active >= options.maxActiveCards) {
            return yield* new CardLimitReached({ limit: options.maxActiveCards })
          }
          const created = yield* insertCard({ ...card, userId })
          yield* sql`UPDATE card_holders SET active_cards = active_cards + 1 WHERE user_id = ${userId}`
          return created
        })
      )
    },
    Effect.catchReason("SqlError", "UniqueViolation", () => Effect.fail(new DuplicateCard())),
    Effect.catchTags({ SqlError: Effect.die, SchemaError: Effect.die, NoSuchElementError: Effect.die })
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
