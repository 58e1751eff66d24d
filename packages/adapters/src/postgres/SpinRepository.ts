import { UserId } from "@payments-gaming/domain/auth"
import { Account } from "@payments-gaming/domain/ledger"
import {
  AlreadySpun,
  ClientSeed,
  IdempotencyKey,
  RoundId,
  type RoundWindow,
  SegmentId,
  SegmentType,
  Spin,
  SpinId,
  type SpinPage,
  type SpinRecord,
  SpinRepository
} from "@payments-gaming/domain/wheel"
import { DateTime, Effect, Layer, Schema, SchemaTransformation } from "effect"
import { SqlClient, type SqlError, SqlSchema } from "effect/sql"
import { type CauseShape, sqlCause } from "./LedgerCause.ts"
import { rowSchema } from "./RowSchema.ts"

const NumberFromBigInt = Schema.BigInt.pipe(
  Schema.decodeTo(Schema.Int, SchemaTransformation.transform({ decode: Number, encode: BigInt }))
)

/** The slots of the spin's own rows in the ledger's statement that records it (`spunShape`). */
const SPIN_SLOTS = [
  "userId",
  "clientSeed",
  "nonce",
  "spinId",
  "round",
  "wheelVersion",
  "drawValue",
  "segmentId",
  "prizeType",
  "prizeValue",
  "idempotencyKey",
  "createdAt",
  "coinAccount",
  "opensAt",
  "closesAt"
] as const
type SpinSlot = (typeof SPIN_SLOTS)[number]

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
 * The spin as the cause of its prize's posting (`SpinRepository.spun`), inside the ledger's one
 * statement (`LedgerRecorderPostgres`), so in one implicit transaction (issue 16: no BEGIN or
 * COMMIT round trip, and the nonce, the spin, its prize's posting and notification and the balance
 * read are one round trip where they were five):
 *
 * - `open` is a row only while the database's clock (`now()`, the statement's start) is inside the
 *   spin's round: the nonce is taken, and so the spin recorded, only then, so no spin lands in a round
 *   after it ended whatever the instance's clock said (issue 34: its seed is revealed a grace
 *   period later). The bounds come from the round's zone rules (`Round.makeRoundClock`), so the
 *   database needs no time-zone data of its own.
 * - `claimed` takes the nonce the spin was drawn with: it advances the player's stored next nonce
 *   only while it and the seed are the spin's (an UPDATE locks the row, and re-checks it after
 *   waiting for a concurrent `set` or spin, so they land wholly before or after); `created` stores
 *   the seed at nonce 1 for a player without a row whose spin is nonce 0 (a concurrent creation
 *   wins the row, and this spin is stale). Neither means the spin is stale.
 * - `recorded` inserts the spin from what was taken: nothing when stale. It has no ON CONFLICT: a
 *   spin that breaks "one spin per user per round" (`oneSpinPerRound`: a second spin in the round,
 *   or a second spin under one idempotency key) is a unique violation that aborts the whole
 *   statement, the nonce advance and the posting with it, and is answered AlreadySpun.
 * - the ledger gates the prize's posting and notification on `recorded` (`written`).
 * - `coins` is the player's coin balance with the prize, which the ledger gives (`balanceAfter`).
 */
const spunShape: CauseShape<SpinSlot> = {
  name: "spin",
  slots: SPIN_SLOTS,
  build: (sql, slot, ledger) => ({
    parts: [
      sql`open AS (
          SELECT 1 WHERE now() >= ${slot.opensAt}::timestamptz AND now() < ${slot.closesAt}::timestamptz
        )`,
      sql`claimed AS (
          UPDATE wheel_client_seeds SET next_nonce = next_nonce + 1
          WHERE user_id = ${slot.userId} AND client_seed = ${slot.clientSeed} AND next_nonce = ${slot.nonce}::int
            AND EXISTS (SELECT 1 FROM open)
          RETURNING user_id
        )`,
      sql`created AS (
          INSERT INTO wheel_client_seeds (user_id, client_seed, next_nonce)
          SELECT ${slot.userId}, ${slot.clientSeed}, 1
          WHERE ${slot.nonce}::int = 0 AND NOT EXISTS (SELECT 1 FROM claimed) AND EXISTS (SELECT 1 FROM open)
          ON CONFLICT (user_id) DO NOTHING
          RETURNING user_id
        )`,
      sql`recorded AS (
          INSERT INTO spins (id, user_id, round, wheel_version, client_seed, nonce, draw_value,
            segment_id, prize_type, prize_value, idempotency_key, created_at)
          SELECT ${slot.spinId}, taken.user_id, ${slot.round}, ${slot.wheelVersion}, ${slot.clientSeed},
            ${slot.nonce}, ${slot.drawValue}, ${slot.segmentId}, ${slot.prizeType}, ${slot.prizeValue},
            ${slot.idempotencyKey}, ${slot.createdAt}
          FROM (SELECT user_id FROM claimed UNION ALL SELECT user_id FROM created) AS taken
          RETURNING id
        )`
    ],
    written: sql`EXISTS (SELECT 1 FROM recorded)`,
    columns: sql`EXISTS (SELECT 1 FROM open) AS open, EXISTS (SELECT 1 FROM recorded) AS recorded,
        (${ledger.balanceAfter(slot.coinAccount)})::bigint AS coins`
  })
}

/** What the spin's statement answers. */
interface Spun {
  readonly open: boolean
  readonly recorded: boolean
  readonly coins: bigint
}

/**
 * The rule "one spin per user per round" (`oneSpinPerRound`) broken at the database, which guards
 * it with unique indexes: a second spin in the round (`spins_user_round_key`) or under one key
 * (`spins_user_idempotency_key`), or this very spin again (its id, when a write whose reply was
 * lost is run again: the service then finds it in the round and answers it).
 */
const SPIN_KEYS = new Set(["spins_user_round_key", "spins_user_idempotency_key", "spins_pkey"])
const breaksOneSpinPerRound = (error: SqlError.SqlError) =>
  error.reason._tag === "UniqueViolation" && SPIN_KEYS.has(error.reason.constraint)

/**
 * `SpinRepository` on PostgreSQL (table `spins`, migrations `0006_wheel` and `0014_wheel_client_seeds`). It runs on the ambient
 * client. `spun` is the spin's part of the ledger's statement that writes it with its nonce, its
 * prize's posting and its notification, atomic on its own (`spunShape`).
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

  const spun = (spin: Spin, open: RoundWindow) =>
    sqlCause(
      spunShape,
      {
        userId: spin.userId,
        clientSeed: spin.clientSeed,
        nonce: spin.nonce,
        spinId: spin.spinId,
        round: spin.round,
        wheelVersion: spin.wheelVersion,
        drawValue: spin.drawValue,
        segmentId: spin.segmentId,
        prizeType: spin.prize.type,
        prizeValue: spin.prize.value,
        idempotencyKey: spin.idempotencyKey,
        createdAt: DateTime.toDateUtc(spin.createdAt),
        coinAccount: Account.userCoins(spin.userId).id,
        opensAt: new Date(open.startMillis),
        closesAt: new Date(open.endMillis)
      },
      (rows: ReadonlyArray<Spun>): Effect.Effect<SpinRecord> => {
        const [row] = rows
        if (row !== undefined && !row.open) return Effect.succeed({ _tag: "Closed" })
        if (row === undefined || !row.recorded) return Effect.succeed({ _tag: "Stale" })
        return Effect.succeed({ _tag: "Recorded", coins: row.coins })
      },
      (error) => (breaksOneSpinPerRound(error) ? new AlreadySpun({ round: spin.round }) : undefined)
    )

  const findByIdempotencyKey = (userId: UserId, key: IdempotencyKey) =>
    selectByIdempotencyKey({ userId, key }).pipe(Effect.orDie)

  const listRound = (round: RoundId, { limit, offset }: SpinPage, userId?: UserId) =>
    selectRound({ round, limit, offset, userId }).pipe(Effect.orDie)

  return SpinRepository.of({ spun, findByIdempotencyKey, listRound })
})

/** Needs a `SqlClient` on a database migrated through `0014_wheel_client_seeds` (`spins.client_seed`). */
export const layer: Layer.Layer<SpinRepository, never, SqlClient.SqlClient> = Layer.effect(SpinRepository, make)
