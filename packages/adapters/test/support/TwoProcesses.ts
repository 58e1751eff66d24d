import { type Context, Effect, Layer, Redacted, type Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql"
import { inject } from "vitest"
import { runMigrations } from "../../src/postgres/Migrations.ts"
import * as PostgresClient from "../../src/postgres/PostgresClient.ts"
import { freshDatabaseUrl } from "./TestDatabase.ts"

/**
 * Two builds of `stack`, each on its own connection pool to one fresh, migrated database: to
 * PostgreSQL, two server processes, which share nothing in memory, so only the database can keep
 * them apart. On the embedded database (one connection, so no second process to run) it is `live`
 * (the same stack on the suite's database) twice.
 */
export const twoProcesses = <ROut, E>(
  stack: Layer.Layer<ROut, E, SqlClient.SqlClient>,
  live: Layer.Layer<ROut | SqlClient.SqlClient, unknown>
) =>
  Effect.gen(function* (): Effect.fn.Return<
    readonly [Context.Context<ROut | SqlClient.SqlClient>, Context.Context<ROut | SqlClient.SqlClient>],
    unknown,
    Scope.Scope
  > {
    if (inject("databaseMode") === "pglite") {
      const one = yield* Layer.build(live)
      return [one, one] as const
    }
    const url = yield* freshDatabaseUrl.pipe(Effect.provide(Reactivity.layer))
    const process = () =>
      stack.pipe(
        Layer.provideMerge(PostgresClient.layer({ url: Redacted.make(url), dataDir: undefined, maxConnections: 10 })),
        Layer.provide(Reactivity.layer),
        Layer.orDie
      )
    const first = yield* Layer.build(process())
    const second = yield* Layer.build(process())
    yield* Effect.provide(runMigrations, first)
    return [first, second] as const
  }).pipe(Effect.orDie)
