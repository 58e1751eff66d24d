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
import { BigDecimal, DateTime, Effect, Layer, Option, Schema, SchemaTransformation } from "effect"
import { SqlClient } from "effect/sql"

// int8 arrives as a bigint; the API's ids are JS numbers, and ChallengeId bounds them to the safe range.
const IdFromBigInt = Schema.BigInt.pipe(
  Schema.decodeTo(ChallengeId, SchemaTransformation.transform({ decode: Number, encode: BigInt }))
)

/** A row as the driver returns it (numeric as a string, timestamptz as a Date), keyed as `Challenge`. */
const ChallengeRow = Schema.Struct({
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
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(ChallengeRow))

// Exactly two decimals, never exponent notation, so `numeric` receives the very value decoded.
const toNumericText = (amount: BigDecimal.BigDecimal): string => {
  const cents = BigDecimal.scale(amount, 2).value
  const sign = cents < 0n ? "-" : ""
  const digits = (cents < 0n ? -cents : cents).toString().padStart(3, "0")
  return `${sign}${digits.slice(0, -2)}.${digits.slice(-2)}`
}

/** `ChallengeRepository` on PostgreSQL (table `trivia_challenges`, migration `0004_trivia`). */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const columns = sql.literal(`id, title, prize_amount::text AS "prizeAmount", start_time AS "startTime",
    end_time AS "endTime", question_type AS "questionType", question_count AS "questionCount",
    number_of_winners AS "numberOfWinners", sharing_formula AS "sharingFormula", version,
    created_at AS "createdAt", updated_at AS "updatedAt"`)

  const toChallenges = (rows: ReadonlyArray<unknown>) =>
    Effect.map(decodeRows(rows), (decoded) => decoded.map((row) => new Challenge(row)))

  const create = Effect.fnUntraced(function* (input: ChallengeInput, at: DateTime.Utc) {
    const rows = yield* sql`INSERT INTO trivia_challenges (title, prize_amount, start_time, end_time, question_type,
          question_count, number_of_winners, sharing_formula, version, created_at, updated_at)
        VALUES (${input.title}, ${toNumericText(input.prizeAmount)}::numeric, ${DateTime.toDateUtc(input.startTime)},
          ${DateTime.toDateUtc(input.endTime)}, ${input.questionType}, ${input.questionCount},
          ${input.numberOfWinners}, ${input.sharingFormula}, 1, ${DateTime.toDateUtc(at)}, ${DateTime.toDateUtc(at)})
        RETURNING ${columns}`
    const [created] = yield* toChallenges(rows)
    return created!
  }, Effect.orDie)

  const findById = Effect.fnUntraced(function* (id: ChallengeId) {
    const rows = yield* sql`SELECT ${columns} FROM trivia_challenges WHERE id = ${id}`
    return Option.fromNullishOr((yield* toChallenges(rows))[0])
  }, Effect.orDie)

  const list = Effect.fnUntraced(function* ({ limit, offset }: Page) {
    const rows = yield* sql`SELECT ${columns} FROM trivia_challenges
        ORDER BY start_time, id LIMIT ${limit} OFFSET ${offset}`
    return yield* toChallenges(rows)
  }, Effect.orDie)

  // The version test in the WHERE clause makes read-check-write a compare-and-set: of two writers
  // that read the same version, exactly one matches a row; the other changes nothing.
  const write = (id: ChallengeId, input: ChallengeInput, expectedVersion: number, at: DateTime.Utc) =>
    Effect.flatMap(
      sql`UPDATE trivia_challenges SET title = ${input.title},
          prize_amount = ${toNumericText(input.prizeAmount)}::numeric,
          start_time = ${DateTime.toDateUtc(input.startTime)}, end_time = ${DateTime.toDateUtc(input.endTime)},
          question_type = ${input.questionType}, question_count = ${input.questionCount},
          number_of_winners = ${input.numberOfWinners}, sharing_formula = ${input.sharingFormula},
          version = version + 1, updated_at = ${DateTime.toDateUtc(at)}
        WHERE id = ${id} AND version = ${expectedVersion}
        RETURNING ${columns}`,
      toChallenges
    ).pipe(Effect.orDie)

  const exists = (id: ChallengeId) =>
    Effect.map(sql`SELECT 1 FROM trivia_challenges WHERE id = ${id}`, (rows) => rows.length > 0).pipe(Effect.orDie)

  const update = Effect.fnUntraced(function* (
    id: ChallengeId,
    input: ChallengeInput,
    expectedVersion: number,
    at: DateTime.Utc
  ) {
    const [updated] = yield* write(id, input, expectedVersion, at)
    if (updated !== undefined) return updated
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
