import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { runMigrations } from "../../src/postgres/Migrations.ts"
import { TestDatabase } from "../support/TestDatabase.ts"

describe("migrations", () => {
  layer(TestDatabase, { timeout: "60 seconds" })((it) => {
    it.effect("are applied once; running them again is a no-op", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const before = yield* sql<{
          id: number
        }>`SELECT migration_id AS id FROM schema_migrations ORDER BY migration_id`
        assert.isAbove(before.length, 0)
        const again = yield* runMigrations
        assert.deepStrictEqual(again, [])
        const after = yield* sql<{ id: number }>`SELECT migration_id AS id FROM schema_migrations ORDER BY migration_id`
        assert.deepStrictEqual(after, before)
      })
    )

    it.effect("two concurrent runs do not collide", () =>
      Effect.gen(function* () {
        const results = yield* Effect.all([runMigrations, runMigrations], { concurrency: 2 })
        assert.deepStrictEqual(results, [[], []])
      })
    )
  })
})
