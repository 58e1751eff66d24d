import { Wheel, type WheelDefinition, WheelRepository } from "@payments-gaming/domain/wheel"
import { Effect, Layer, Option, Schema, SchemaTransformation } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import { rowSchema } from "./RowSchema.ts"

// int8 arrives as a bigint; wheel values and weights are bounded well inside the safe integers.
const NumberFromBigInt = Schema.BigInt.pipe(
  Schema.decodeTo(Schema.Number, SchemaTransformation.transform({ decode: Number, encode: BigInt }))
)

/**
 * A segment row of `wheel_segments` joined to its `wheels` row, as `segments` below selects it
 * (int8 as a bigint): the wheel's version and currency, and the segment as the wheel holds it.
 */
const WheelSegmentRow = rowSchema(
  Schema.Struct({
    version: Schema.Int,
    currency: Schema.String,
    segmentId: Schema.String,
    label: Schema.String,
    type: Schema.String,
    value: NumberFromBigInt,
    weight: NumberFromBigInt
  }),
  ({ version, currency, segmentId, label, type, value, weight }) => ({
    version,
    currency,
    segment: { id: segmentId, label, type, value, weight }
  })
)
// The rows are checked again as a whole wheel: eight segments, ids from labels, a drawable weight.
const decodeWheel = Schema.decodeUnknownEffect(Wheel)

/**
 * `WheelRepository` on PostgreSQL (tables `wheels` and `wheel_segments`, migration `0006_wheel`).
 * Wheels are never edited in place: a change is a new version, so a past spin's wheel stays intact.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const select = (where: Statement.Fragment) =>
    sql`SELECT w.version, w.currency, s.segment_id AS "segmentId", s.label, s.type, s.value, s.weight
          FROM wheels w JOIN wheel_segments s ON s.wheel_id = w.id
          WHERE ${where}
          ORDER BY s.position`

  const activeSegments = SqlSchema.findAll({
    Request: Schema.Void,
    Result: WheelSegmentRow,
    execute: () => select(sql.literal("w.active"))
  })

  const segmentsOfVersion = SqlSchema.findAll({
    Request: Schema.Number,
    Result: WheelSegmentRow,
    execute: (version) => select(sql`w.version = ${version}`)
  })

  const toWheel = (rows: ReadonlyArray<typeof WheelSegmentRow.Type>) => {
    const first = rows[0]
    if (first === undefined) return Effect.succeedNone
    return Effect.asSome(
      decodeWheel({ version: first.version, currency: first.currency, segments: rows.map((row) => row.segment) })
    )
  }

  const active = activeSegments().pipe(
    Effect.flatMap(toWheel),
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.die(new Error("no active wheel: is migration 0006_wheel applied?")),
        onSome: Effect.succeed
      })
    ),
    Effect.orDie
  )

  const byVersion = Effect.fnUntraced(function* (version: number) {
    return yield* Effect.flatMap(segmentsOfVersion(version), toWheel)
  }, Effect.orDie)

  // The replacement's rows, in its transaction: made once, not a generator per call
  // (docs/architecture.md). The active row's lock orders replacers: the second waits, then finds the
  // row no longer active (READ COMMITTED re-checks it) and leaves the winner's wheel in place.
  const replaceRows = Effect.fnUntraced(function* (expectedVersion: number, definition: WheelDefinition) {
    const [current] = yield* sql<{
      readonly id: bigint
      readonly version: number
    }>`SELECT id, version FROM wheels WHERE active FOR UPDATE`
    if (current === undefined || current.version !== expectedVersion) return
    const [next] = yield* sql<{
      readonly version: number
    }>`SELECT (coalesce(max(version), 0) + 1)::int AS version FROM wheels`
    yield* sql`UPDATE wheels SET active = false WHERE id = ${current.id}`
    const [created] = yield* sql<{ readonly id: bigint }>`INSERT INTO wheels (version, currency, active)
        VALUES (${next!.version}, ${definition.currency}, true) RETURNING id`
    for (const [position, segment] of definition.segments.entries()) {
      yield* sql`INSERT INTO wheel_segments (wheel_id, position, segment_id, label, type, value, weight)
          VALUES (${created!.id}, ${position}, ${segment.id}, ${segment.label}, ${segment.type},
            ${segment.value}, ${segment.weight})`
    }
  })

  const replaceActive = Effect.fnUntraced(function* (expectedVersion: number, definition: WheelDefinition) {
    yield* sql.withTransaction(replaceRows(expectedVersion, definition))
    return yield* active
  }, Effect.orDie)

  return WheelRepository.of({ active, byVersion, replaceActive })
})

/** Needs a `SqlClient` on a database migrated through `0006_wheel`. */
export const layer: Layer.Layer<WheelRepository, never, SqlClient.SqlClient> = Layer.effect(WheelRepository, make)
