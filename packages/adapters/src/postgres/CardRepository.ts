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
import { SqlClient, SqlError, SqlSchema } from "effect/sql"
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

  /**
   * The whole insert in one statement, so in one implicit transaction: no BEGIN or COMMIT round trip
   * (issue 16). The first part locks the user's holder row (creating it on first use, as
   * `SELECT … FOR UPDATE` would) and counts the card about to be added; it returns no row when the
   * user is at the limit, and then the card is not inserted either. The guarantees are those of the
   * transaction it replaced: the holder row lock serialises one user's changes, and the limit is
   * checked on the latest committed `active_cards` (an upsert re-reads the row it waited for).
   *
   * A duplicate is refused by the partial unique index itself, as a unique violation: that error
   * aborts the whole statement, so the count it had already raised is rolled back with it.
   */
  const insertCard = SqlSchema.findOneOption({
    Request: Schema.Struct({
      userId: Schema.String,
      maxActiveCards: Schema.Number,
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
    execute: (card) => sql`WITH slot AS (
          INSERT INTO card_holders (user_id, active_cards)
          SELECT ${card.userId}, 1 WHERE ${card.maxActiveCards} >= 1
          ON CONFLICT (user_id) DO UPDATE SET active_cards = card_holders.active_cards + 1
            WHERE card_holders.active_cards < ${card.maxActiveCards}
          RETURNING user_id
        )
        INSERT INTO cards (user_id, brand, first_digits, last4, fingerprint, cardholder_name,
          expiry_month, expiry_year, created_at)
        SELECT slot.user_id, ${card.brand}, ${card.firstDigits}, ${card.last4}, ${card.fingerprint},
          ${card.cardholderName}, ${card.expiryMonth}, ${card.expiryYear}, ${card.createdAt}
        FROM slot
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

  const hasActive = (userId: UserId, fingerprint: string) =>
    Effect.map(
      sql`SELECT 1 FROM cards WHERE user_id = ${userId} AND fingerprint = ${fingerprint} AND deleted_at IS NULL`,
      (rows) => rows.length > 0
    )

  /** The unique violation of `cards_user_fingerprint_active`: the user has this card already. */
  const isDuplicate = (error: SqlError.SqlError) =>
    error.reason._tag === "UniqueViolation" && error.reason.constraint === "cards_user_fingerprint_active"

  // One statement when the card is added, where a transaction took four (BEGIN, the slot, the card,
  // COMMIT): each statement is a round trip and a socket write (issue 16). At the limit a second
  // one asks whether the card is a duplicate all the same, since a duplicate is reported as one
  // whatever the count.
  const insert = Effect.fnUntraced(
    function* (userId: UserId, card: CardToStore, options: { readonly maxActiveCards: number }) {
      const created = yield* insertCard({ ...card, userId, maxActiveCards: options.maxActiveCards }).pipe(
        Effect.catchIf(
          (error) => SqlError.isSqlError(error) && isDuplicate(error),
          () => Effect.fail(new DuplicateCard())
        )
      )
      if (Option.isSome(created)) return created.value
      // After the statement, so no longer under the holder row's lock: a delete racing in between
      // can make a duplicate read as a full wallet. Both answers were true a moment apart.
      if (yield* hasActive(userId, card.fingerprint)) return yield* new DuplicateCard()
      return yield* new CardLimitReached({ limit: options.maxActiveCards })
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

  const deleteRows = Effect.fnUntraced(function* (userId: UserId, cardId: CardId) {
    const [holder] = yield* sql`SELECT 1 FROM card_holders WHERE user_id = ${userId} FOR UPDATE`
    if (holder === undefined) return yield* new CardNotFound({ cardId })
    const deleted = yield* sql`UPDATE cards SET deleted_at = now()
      WHERE id = ${cardId} AND user_id = ${userId} AND deleted_at IS NULL RETURNING id`
    if (deleted.length === 0) return yield* new CardNotFound({ cardId })
    yield* sql`UPDATE card_holders SET active_cards = active_cards - 1 WHERE user_id = ${userId}`
  })

  const softDelete = (userId: UserId, cardId: CardId) =>
    sql.withTransaction(deleteRows(userId, cardId)).pipe(Effect.catchTag("SqlError", Effect.die))

  return CardRepository.of({ insert, countActive, listByUser, softDelete })
})

/** Needs a `SqlClient` on a database migrated through `0003_cards`. */
export const layer: Layer.Layer<CardRepository, never, SqlClient.SqlClient> = Layer.effect(CardRepository, make)
