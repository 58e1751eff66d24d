import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { inject } from "vitest"
import * as PostgresClient from "../../src/postgres/PostgresClient.ts"
import { freshDatabaseUrl } from "../support/TestDatabase.ts"

/**
 * The backends that served `count` statements sent at once, after one statement has opened the
 * pool's first connection. Each statement sleeps, so none finishes before the last is sent.
 */
const backendsOf = (options: { readonly maxConnections: number; readonly statementsPerConnection?: number }) =>
  Effect.gen(function* () {
    const url = yield* freshDatabaseUrl
    return yield* Effect.provide(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`SELECT 1`
        const rows = yield* Effect.all(
          Array.from({ length: 8 }, () => sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`),
          { concurrency: "unbounded" }
        )
        return new Set(rows.map(([row]) => row!.pid)).size
      }),
      PostgresClient.layer({ url: Redacted.make(url), dataDir: undefined, ...options })
    )
  })

// DATABASE_URL only: in the suite's PGlite mode (no server reachable) there is no URL to connect to.
describe.runIf(inject("databaseMode") === "postgres")("PostgresClient on DATABASE_URL", () => {
  it.effect("pipelines concurrent statements on one connection, up to the statements per connection", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* backendsOf({ maxConnections: 4, statementsPerConnection: 8 }), 1)
      // Four at a time per connection: the pool opens a second one for the other four.
      assert.strictEqual(yield* backendsOf({ maxConnections: 4, statementsPerConnection: 4 }), 2)
    })
  )

  it.effect("sends one statement at a time per connection by default, as at 1", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* backendsOf({ maxConnections: 4 }), 4)
      assert.strictEqual(yield* backendsOf({ maxConnections: 4, statementsPerConnection: 1 }), 4)
    })
  )

  it.effect("refuses DATABASE_STATEMENTS_PER_CONNECTION below 1 at start, naming it", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(
        Layer.build(PostgresClient.layerConfig).pipe(
          Effect.provide(
            ConfigProvider.layer(
              ConfigProvider.fromUnknown({
                DATABASE_URL: "postgres://127.0.0.1:1/none",
                DATABASE_STATEMENTS_PER_CONNECTION: "0"
              })
            )
          ),
          Effect.scoped
        )
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "DATABASE_STATEMENTS_PER_CONNECTION must be 1")
    })
  )
})
