import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { SqlClient } from "effect/sql"
import { inject } from "vitest"
import { runMigrations } from "../../src/postgres/Migrations.ts"
import { migrations } from "../../src/postgres/migrations/index.ts"
import * as PostgresClient from "../../src/postgres/PostgresClient.ts"

let counter = 0

/** A fresh, empty database on the run's PostgreSQL server; dropped when the scope closes. */
export const freshDatabaseUrl = Effect.gen(function* () {
  const adminUrl = inject("databaseAdminUrl")
  const name = `pg_test_${inject("runId")}_${process.pid}_${counter++}`
  // A short-lived admin client per statement. A pooled client kept for the whole scope loses its
  // idle connection after a minute, and a pool whose scope is already closing cannot open another:
  // the DROP in the finalizer then waited forever (the long fuzz profile hung on it).
  const withAdmin = <A, E>(use: (admin: PgClient.PgClient) => Effect.Effect<A, E>) =>
    Effect.scoped(Effect.flatMap(PgClient.make({ url: Redacted.make(adminUrl), maxConnections: 1 }), use)).pipe(
      Effect.provide(Reactivity.layer)
    )
  yield* withAdmin((admin) => admin`CREATE DATABASE ${admin(name)}`)
  yield* Effect.addFinalizer(() =>
    withAdmin((admin) => admin`DROP DATABASE IF EXISTS ${admin(name)} WITH (FORCE)`).pipe(
      Effect.timeout("30 seconds"),
      Effect.ignore
    )
  )
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
})

/**
 * The database layer for adapter tests: a fresh database on the real PostgreSQL (always in CI), or
 * an in-memory embedded PGlite when no server answers, with every migration applied.
 */
export const TestDatabase: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient> = Layer.unwrap(
  Effect.gen(function* () {
    if (inject("databaseMode") === "pglite") {
      return PostgresClient.layer({ url: undefined, dataDir: undefined })
    }
    const url = yield* freshDatabaseUrl
    return PostgresClient.layer({ url: Redacted.make(url), dataDir: undefined, maxConnections: 10 })
  }).pipe(Effect.provide(Reactivity.layer))
).pipe(
  Layer.tap((context) => Effect.provide(runMigrations, context)),
  Layer.orDie
)

/** A one-connection client on `url`, for tests that inspect a database another process wrote. */
export const clientFor = (url: string) =>
  PgClient.make({ url: Redacted.make(url), maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))

/** A database with no migration applied, for a test that runs them itself up to the one it checks. */
export const EmptyDatabase = Layer.unwrap(
  Effect.gen(function* () {
    if (inject("databaseMode") === "pglite") return PostgresClient.layer({ url: undefined, dataDir: undefined })
    const url = yield* freshDatabaseUrl
    return PostgresClient.layer({ url: Redacted.make(url), dataDir: undefined, maxConnections: 2 })
  }).pipe(Effect.provide(Reactivity.layer))
).pipe(Layer.orDie)

/**
 * Runs, in order, every migration whose key sorts before `key`: the schema just before that
 * migration. Gives the client to write rows as the older schema kept them.
 */
export const migrateUpTo = (key: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const before = Object.entries(migrations).filter(([name]) => name < key)
    for (const [, migration] of before.sort(([a], [b]) => (a < b ? -1 : 1))) yield* migration
    return sql
  })
