import { Commitment, RoundId, type RoundSeed, RoundSeeds } from "@payments-gaming/domain/wheel"
import { DateTime, Effect, Layer, Option, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"

const SeedRow = Schema.Struct({
  round: RoundId,
  seed: Schema.Uint8Array,
  commitment: Commitment,
  createdAt: Schema.DateTimeUtcFromDate
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(SeedRow))

const toSeed = (row: typeof SeedRow.Type): RoundSeed => ({
  round: row.round,
  seed: Redacted.make(new Uint8Array(row.seed)),
  commitment: row.commitment,
  createdAt: row.createdAt
})

/**
 * `RoundSeeds` on PostgreSQL (table `round_seeds`, migration `0006_wheel`). The first stored seed
 * of a round wins: INSERT … ON CONFLICT DO NOTHING waits for a concurrent insert of the same round
 * to commit, and the SELECT after it (a new snapshot under READ COMMITTED) reads the winner.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const find = (round: RoundId) =>
    Effect.flatMap(
      sql`SELECT round, seed, commitment, created_at AS "createdAt" FROM round_seeds WHERE round = ${round}`,
      decodeRows
    ).pipe(Effect.map((rows) => Option.map(Option.fromUndefinedOr(rows[0]), toSeed)))

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
    const rows = yield* decodeRows(
      yield* sql`SELECT round, seed, commitment, created_at AS "createdAt" FROM round_seeds
          WHERE round = ${round} AND round < ${current}`
    )
    return Option.map(Option.fromUndefinedOr(rows[0]), toSeed)
  }, Effect.orDie)

  return RoundSeeds.of({ getOrCreate, revealed })
})

/** Needs a `SqlClient` on a database migrated through `0006_wheel`. */
export const layer: Layer.Layer<RoundSeeds, never, SqlClient.SqlClient> = Layer.effect(RoundSeeds, make)
