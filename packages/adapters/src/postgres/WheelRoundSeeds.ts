import { Commitment, RoundId, type RoundSeed, RoundSeeds } from "@payments-gaming/domain/wheel"
import { DateTime, Effect, Layer, Option, Redacted, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { rowSchema } from "./RowSchema.ts"

/** A row of `round_seeds` as the queries below select it (bytea as a Uint8Array). */
const RoundSeedRow = rowSchema(
  Schema.Struct({
    round: RoundId,
    seed: Schema.Uint8Array,
    commitment: Commitment,
    createdAt: Schema.DateTimeUtcFromDate
  }),
  (row): RoundSeed => ({
    round: row.round,
    seed: Redacted.make(new Uint8Array(row.seed)),
    commitment: row.commitment,
    createdAt: row.createdAt
  })
)

/**
 * `RoundSeeds` on PostgreSQL (table `round_seeds`, migration `0006_wheel`). The first stored seed
 * of a round wins: INSERT … ON CONFLICT DO NOTHING waits for a concurrent insert of the same round
 * to commit, and the SELECT after it (a new snapshot under READ COMMITTED) reads the winner.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const find = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: RoundSeedRow,
    execute: (round) =>
      sql`SELECT round, seed, commitment, created_at AS "createdAt" FROM round_seeds WHERE round = ${round}`
  })

  const findBefore = SqlSchema.findOneOption({
    Request: Schema.Struct({ round: Schema.String, current: Schema.String }),
    Result: RoundSeedRow,
    execute: ({ round, current }) => sql`SELECT round, seed, commitment, created_at AS "createdAt" FROM round_seeds
          WHERE round = ${round} AND round < ${current}`
  })

  const getOrCreate = Effect.fnUntraced(function* (round: RoundId, fresh: Effect.Effect<RoundSeed>) {
    const stored = yield* find(round)
    if (Option.isSome(stored)) return stored.value
    const candidate = yield* fresh
    yield* sql`INSERT INTO round_seeds (round, seed, commitment, created_at)
        VALUES (${round}, ${Buffer.from(Redacted.value(candidate.seed))}, ${candidate.commitment},
          ${DateTime.toDateUtc(candidate.createdAt)})
        ON CONFLICT (round) DO NOTHING`
    const winner = yield* find(round)
    if (Option.isNone(winner)) return yield* Effect.die(new Error(`round ${round} has no seed after insert`))
    return winner.value
  }, Effect.orDie)

  // `round < current` is checked here and again in the query, so no code path reads a seed of a later round.
  const revealed = Effect.fnUntraced(function* (round: RoundId, current: RoundId) {
    if (round >= current) return Option.none<RoundSeed>()
    return yield* findBefore({ round, current })
  }, Effect.orDie)

  return RoundSeeds.of({ getOrCreate, revealed })
})

/** Needs a `SqlClient` on a database migrated through `0006_wheel`. */
export const layer: Layer.Layer<RoundSeeds, never, SqlClient.SqlClient> = Layer.effect(RoundSeeds, make)
