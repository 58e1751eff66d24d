import {
  Challenge,
  ChallengeId,
  type ChallengeInput,
  ChallengeNotFound,
  ChallengeRepository,
  ConcurrentUpdate,
  type Page,
  SharingFormula
} from "@payments-gaming/domain/trivia"
import { BigDecimal, type DateTime, Effect, Layer, Option, Schema, SchemaTransformation } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { rowSchema } from "./RowSchema.ts"

// int8 arrives as a bigint; the API's ids are JS numbers, and ChallengeId bounds them to the safe range.
const IdFromBigInt = Schema.BigInt.pipe(
  Schema.decodeTo(ChallengeId, SchemaTransformation.transform({ decode: Number, encode: BigInt }))
)

/**
 * A row of `trivia_challenges` as `columns` below selects it (numeric as text, timestamptz as a
 * Date), keyed as `Challenge` by the query's aliases.
 */
const ChallengeColumns = Schema.Struct({
  id: IdFromBigInt,
  title: Schema.String,
  prizeAmount: Schema.BigDecimalFromString,
  startTime: Schema.DateTimeUtcFromDate,
  endTime: Schema.DateTimeUtcFromDate,
  questionType: Schema.Int,
  questionCount: Schema.Int,
  numberOfWinners: Schema.Int,
  sharingFormula: SharingFormula,
  version: Schema.Int,
  createdAt: Schema.DateTimeUtcFromDate,
  updatedAt: Schema.DateTimeUtcFromDate
})
const ChallengeRow = rowSchema(ChallengeColumns, (row) => new Challenge(row))

// Exactly two decimals, never exponent notation, so `numeric` receives the very value decoded.
const toNumericText = (amount: BigDecimal.BigDecimal): string => {
  const cents = BigDecimal.scale(amount, 2).value
  const sign = cents < 0n ? "-" : ""
  const digits = (cents < 0n ? -cents : cents).toString().padStart(3, "0")
  return `${sign}${digits.slice(0, -2)}.${digits.slice(-2)}`
}

/** A challenge as written: the input's dates as the Dates the timestamptz columns take. */
const ChallengeWrite = Schema.Struct({
  title: Schema.String,
  prizeAmount: Schema.BigDecimal,
  startTime: Schema.DateTimeUtcFromDate,
  endTime: Schema.DateTimeUtcFromDate,
  questionType: Schema.Number,
  questionCount: Schema.Number,
  numberOfWinners: Schema.Number,
  sharingFormula: Schema.String,
  at: Schema.DateTimeUtcFromDate
})

/** `ChallengeRepository` on PostgreSQL (table `trivia_challenges`, migration `0004_trivia`). */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const columns = sql.literal(`id, title, prize_amount::text AS "prizeAmount", start_time AS "startTime",
    end_time AS "endTime", question_type AS "questionType", question_count AS "questionCount",
    number_of_winners AS "numberOfWinners", sharing_formula AS "sharingFormula", version,
    created_at AS "createdAt", updated_at AS "updatedAt"`)

  const insert = SqlSchema.findOne({
    Request: ChallengeWrite,
    Result: ChallengeRow,
    execute: (input) => sql`INSERT INTO trivia_challenges (title, prize_amount, start_time, end_time, question_type,
          question_count, number_of_winners, sharing_formula, version, created_at, updated_at)
        VALUES (${input.title}, ${toNumericText(input.prizeAmount)}::numeric, ${input.startTime},
          ${input.endTime}, ${input.questionType}, ${input.questionCount},
          ${input.numberOfWinners}, ${input.sharingFormula}, 1, ${input.at}, ${input.at})
        RETURNING ${columns}`
  })

  const selectById = SqlSchema.findOneOption({
    Request: Schema.Number,
    Result: ChallengeRow,
    execute: (id) => sql`SELECT ${columns} FROM trivia_challenges WHERE id = ${id}`
  })

  const selectPage = SqlSchema.findAll({
    Request: Schema.Struct({ limit: Schema.Number, offset: Schema.Number }),
    Result: ChallengeRow,
    execute: ({ limit, offset }) => sql`SELECT ${columns} FROM trivia_challenges
        ORDER BY start_time, id LIMIT ${limit} OFFSET ${offset}`
  })

  // The version test in the WHERE clause makes read-check-write a compare-and-set: of two writers
  // that read the same version, exactly one matches a row; the other changes nothing.
  const write = SqlSchema.findOneOption({
    Request: ChallengeWrite.mapFields((fields) => ({ ...fields, id: Schema.Number, expectedVersion: Schema.Number })),
    Result: ChallengeRow,
    execute: (input) => sql`UPDATE trivia_challenges SET title = ${input.title},
          prize_amount = ${toNumericText(input.prizeAmount)}::numeric,
          start_time = ${input.startTime}, end_time = ${input.endTime},
          question_type = ${input.questionType}, question_count = ${input.questionCount},
          number_of_winners = ${input.numberOfWinners}, sharing_formula = ${input.sharingFormula},
          version = version + 1, updated_at = ${input.at}
        WHERE id = ${input.id} AND version = ${input.expectedVersion}
        RETURNING ${columns}`
  })

  const create = (input: ChallengeInput, at: DateTime.Utc) => insert({ ...input, at }).pipe(Effect.orDie)

  const findById = (id: ChallengeId) => selectById(id).pipe(Effect.orDie)

  const list = (page: Page) => selectPage(page).pipe(Effect.orDie)

  const exists = (id: ChallengeId) =>
    Effect.map(sql`SELECT 1 FROM trivia_challenges WHERE id = ${id}`, (rows) => rows.length > 0).pipe(Effect.orDie)

  const update = Effect.fnUntraced(function* (
    id: ChallengeId,
    input: ChallengeInput,
    expectedVersion: number,
    at: DateTime.Utc
  ) {
    const updated = yield* write({ ...input, at, id, expectedVersion }).pipe(Effect.orDie)
    if (Option.isSome(updated)) return updated.value
    return yield* (yield* exists(id))
      ? Effect.fail(new ConcurrentUpdate({ challengeId: id, expectedVersion }))
      : Effect.fail(new ChallengeNotFound({ challengeId: id }))
  })

  return ChallengeRepository.of({ create, findById, list, update })
})

/** Needs a `SqlClient` on a database migrated through `0004_trivia`. */
export const layer: Layer.Layer<ChallengeRepository, never, SqlClient.SqlClient> = Layer.effect(
  ChallengeRepository,
  make
)
