import { UserId } from "@payments-gaming/domain/auth"
import { Account } from "@payments-gaming/domain/ledger"
import type { NotifiedPosting } from "@payments-gaming/domain/notifications"
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
import { SqlClient, SqlError, SqlSchema, type Statement } from "effect/sql"
import { creditValues, LEDGER_SLOTS } from "./LedgerWrites.ts"
import { NOTIFIED_POSTING_SLOTS, notifiedPostingParts } from "./NotifiedPostingWrites.ts"
import { outboxValues } from "./OutboxWrites.ts"
import { rowSchema } from "./RowSchema.ts"
import { type Slots, statementTemplate } from "./StatementTemplate.ts"

const NumberFromBigInt = Schema.BigInt.pipe(
  Schema.decodeTo(Schema.Int, SchemaTransformation.transform({ decode: Number, encode: BigInt }))
)

/** The slots of the spin's own rows in `record`'s statement (its posting's follow them). */
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
 * `SpinRepository` on PostgreSQL (table `spins`, migrations `0006_wheel` and `0014_wheel_client_seeds`). It runs on the ambient
 * client. `record` writes the spin with its nonce, its prize's posting and its notification in one
 * statement, atomic on its own (below).
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

  /**
   * The whole spin in one statement, so in one implicit transaction (issue 16: no BEGIN or COMMIT
   * round trip, and the nonce, the spin, its prize's posting and notification and the balance read
   * are one round trip where they were five):
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
   * - `recorded` inserts the spin from what was taken: nothing when stale. It has no ON CONFLICT: a second
   *   spin in the round, or a second spin under one idempotency key, is a unique violation that
   *   aborts the whole statement, the nonce advance with it, and is answered AlreadySpun.
   * - the prize's posting and notification (`NotifiedPostingWrites.notifiedPostingParts`) are gated
   *   on `recorded`.
   * - `coins` is the player's coin balance with the prize: the posting's new balance of the coin
   *   account when the prize is coins (`user_accounts`), else the balance as the statement found it.
   *
   * One statement template per kind of prize (none, a posting, a posting with its notification):
   * the text is compiled once and each spin binds its values (`StatementTemplate`).
   */
  const spinStatement = (slot: Slots<SpinSlot>, prize: Array<Statement.Fragment> | undefined) => {
    const parts: Array<Statement.Fragment> = [
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
        )`,
      ...(prize ?? [])
    ]
    const stored = sql`(SELECT balance FROM ledger_accounts WHERE id = ${slot.coinAccount})`
    const coins =
      prize === undefined
        ? sql`COALESCE(${stored}, 0)`
        : sql`COALESCE((SELECT balance FROM user_accounts WHERE id = ${slot.coinAccount}), ${stored}, 0)`
    return sql`WITH ${sql.csv(parts)}
      SELECT EXISTS (SELECT 1 FROM open) AS open, EXISTS (SELECT 1 FROM recorded) AS recorded,
        (${coins})::bigint AS coins`
  }
  const spinAlone = statementTemplate(sql, SPIN_SLOTS, (slot) => spinStatement(slot, undefined))
  const spinPosting = statementTemplate(sql, [...SPIN_SLOTS, ...LEDGER_SLOTS], (slot) =>
    spinStatement(slot, notifiedPostingParts(sql, slot, undefined, sql`EXISTS (SELECT 1 FROM recorded)`))
  )
  const spinNotified = statementTemplate(sql, [...SPIN_SLOTS, ...NOTIFIED_POSTING_SLOTS], (slot) =>
    spinStatement(slot, notifiedPostingParts(sql, slot, slot, sql`EXISTS (SELECT 1 FROM recorded)`))
  )

  type Recorded = { readonly open: boolean; readonly recorded: boolean; readonly coins: bigint }
  const recordStatement = (spin: Spin, open: RoundWindow, prize: NotifiedPosting | undefined) => {
    const values: Record<SpinSlot, unknown> = {
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
    }
    if (prize === undefined) return spinAlone<Recorded>(values)
    const posting = { ...values, ...creditValues(prize.transaction) }
    return prize.notification === undefined
      ? spinPosting<Recorded>(posting)
      : spinNotified<Recorded>({ ...posting, ...outboxValues(prize.notification) })
  }

  /**
   * A unique violation of one of the spin's own keys: a second spin in the round, or under one key,
   * or this very spin again (its id, when a write whose reply was lost is run again: the service
   * then finds it in the round and answers it).
   */
  const SPIN_KEYS = new Set(["spins_user_round_key", "spins_user_idempotency_key", "spins_pkey"])
  const isAlreadySpun = (error: SqlError.SqlError) =>
    error.reason._tag === "UniqueViolation" && SPIN_KEYS.has(error.reason.constraint)

  const record = Effect.fnUntraced(
    function* (spin: Spin, open: RoundWindow, prize?: NotifiedPosting) {
      const [row] = yield* recordStatement(spin, open, prize).pipe(
        Effect.catchIf(
          (error) => SqlError.isSqlError(error) && isAlreadySpun(error),
          () => Effect.fail(new AlreadySpun({ round: spin.round }))
        )
      )
      if (row !== undefined && !row.open) return { _tag: "Closed" } satisfies SpinRecord
      if (row === undefined || !row.recorded) return { _tag: "Stale" } satisfies SpinRecord
      return { _tag: "Recorded", coins: row.coins } satisfies SpinRecord
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
