import { UserId } from "@payments-gaming/domain/auth"
import type { NotifiedPosting } from "@payments-gaming/domain/notifications"
import {
  AlreadySpun,
  ClientSeed,
  IdempotencyKey,
  RoundId,
  SegmentId,
  SegmentType,
  Spin,
  SpinId,
  type SpinPage,
  SpinRepository
} from "@payments-gaming/domain/wheel"
import { DateTime, Effect, Layer, Schema, SchemaTransformation } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { creditParts } from "./LedgerWrites.ts"
import { outboxRows } from "./OutboxWrites.ts"
import { rowSchema } from "./RowSchema.ts"

const NumberFromBigInt = Schema.BigInt.pipe(
  Schema.decodeTo(Schema.Int, SchemaTransformation.transform({ decode: Number, encode: BigInt }))
)

/**
 * A row of `spins` as `columns` below selects it (uuid as text, int8 as bigint, timestamptz as a
 * Date), keyed as `Spin` by the query's aliases; the prize columns make the spin's `prize`.
 */
const SpinColumns = Schema.Struct({
  spinId: SpinId,
  userId: UserId,
  round: RoundId,
  wheelVersion: Schema.Int,
  clientSeed: Schema.NullOr(ClientSeed),
  nonce: Schema.Int,
  drawValue: NumberFromBigInt,
  segmentId: SegmentId,
  prizeType: SegmentType,
  prizeValue: NumberFromBigInt,
  idempotencyKey: Schema.NullOr(IdempotencyKey),
  createdAt: Schema.DateTimeUtcFromDate
})
const SpinRow = rowSchema(
  SpinColumns,
  ({ prizeType, prizeValue, ...row }) => new Spin({ ...row, prize: { type: prizeType, value: prizeValue } })
)

/**
 * `SpinRepository` on PostgreSQL (table `spins`, migrations `0006_wheel` and `0014_wheel_client_seeds`). It runs on the ambient
 * client, so inside a `UnitOfWork` the spin commits or rolls back with its ledger posting.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const columns = sql.literal(`id AS "spinId", user_id AS "userId", round, wheel_version AS "wheelVersion",
    client_seed AS "clientSeed", nonce,
    draw_value AS "drawValue", segment_id AS "segmentId", prize_type AS "prizeType", prize_value AS "prizeValue",
    idempotency_key AS "idempotencyKey", created_at AS "createdAt"`)

  const selectByIdempotencyKey = SqlSchema.findOneOption({
    Request: Schema.Struct({ userId: Schema.String, key: Schema.String }),
    Result: SpinRow,
    execute: ({ userId, key }) =>
      sql`SELECT ${columns} FROM spins WHERE user_id = ${userId} AND idempotency_key = ${key}`
  })

  const selectRound = SqlSchema.findAll({
    Request: Schema.Struct({
      round: Schema.String,
      limit: Schema.Number,
      offset: Schema.Number,
      userId: Schema.optional(Schema.String)
    }),
    Result: SpinRow,
    execute: ({ round, limit, offset, userId }) =>
      userId === undefined
        ? sql`SELECT ${columns} FROM spins WHERE round = ${round}
              ORDER BY created_at, id LIMIT ${limit} OFFSET ${offset}`
        : sql`SELECT ${columns} FROM spins WHERE round = ${round} AND user_id = ${userId}
              ORDER BY created_at, id LIMIT ${limit} OFFSET ${offset}`
  })

  // ON CONFLICT DO NOTHING names no constraint, so every unique index answers "no row" instead of an
  // error that would abort the caller's transaction (no savepoint needed). Either conflict is
  // AlreadySpun: (user_id, round) is a second spin in the round; (user_id, idempotency_key) is a
  // retry that raced the first request with its key, which the service then finds by the key and
  // replays. A conflicting insert waits for the other transaction as a unique violation would, and
  // inserts after all if that one rolls back.
  const insertSpin = (spin: Spin) =>
    sql`INSERT INTO spins (id, user_id, round, wheel_version, client_seed, nonce, draw_value,
          segment_id, prize_type, prize_value, idempotency_key, created_at)
        VALUES (${spin.spinId}, ${spin.userId}, ${spin.round}, ${spin.wheelVersion}, ${spin.clientSeed}, ${spin.nonce},
          ${spin.drawValue}, ${spin.segmentId}, ${spin.prize.type}, ${spin.prize.value}, ${spin.idempotencyKey},
          ${DateTime.toDateUtc(spin.createdAt)})
        ON CONFLICT DO NOTHING
        RETURNING id`

  // With a prize, one statement writes the spin, the prize's posting and its notification: each
  // part after the spin is gated on the spin row being new, so a spin refused as AlreadySpun posts
  // nothing (issue 16: two statements fewer per winning spin).
  const insertWithPrize = (spin: Spin, prize: NotifiedPosting) => {
    const parts = [
      sql`recorded AS (${insertSpin(spin)})`,
      ...creditParts(sql, prize.transaction, sql`EXISTS (SELECT 1 FROM recorded)`)
    ]
    if (prize.notification !== undefined) {
      parts.push(sql`notified AS (${outboxRows(sql, prize.notification, sql`EXISTS (SELECT 1 FROM tx)`)})`)
    }
    return sql`WITH ${sql.csv(parts)} SELECT id FROM recorded`
  }

  const record = Effect.fnUntraced(
    function* (spin: Spin, prize?: NotifiedPosting) {
      const inserted = yield* prize === undefined ? insertSpin(spin) : insertWithPrize(spin, prize)
      if (inserted.length === 0) return yield* new AlreadySpun({ round: spin.round })
    },
    Effect.catchTag("SqlError", Effect.die)
  )

  const findByIdempotencyKey = (userId: UserId, key: IdempotencyKey) =>
    selectByIdempotencyKey({ userId, key }).pipe(Effect.orDie)

  const listRound = (round: RoundId, { limit, offset }: SpinPage, userId?: UserId) =>
    selectRound({ round, limit, offset, userId }).pipe(Effect.orDie)

  return SpinRepository.of({ record, findByIdempotencyKey, listRound })
})

/** Needs a `SqlClient` on a database migrated through `0014_wheel_client_seeds` (`spins.client_seed`). */
export const layer: Layer.Layer<SpinRepository, never, SqlClient.SqlClient> = Layer.effect(SpinRepository, make)
