import { Effect } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import { migrations } from "./migrations/index.ts"

// An arbitrary constant: the advisory lock that serialises migrations across processes.
const MIGRATION_LOCK_KEY = 7_340_213_001

const migrator = Migrator.make({})

/**
 * Runs every pending migration. Safe to call from several processes at once: a transaction-scoped
 * advisory lock makes the second wait for the first, and then find nothing left to do.
 */
export const runMigrations = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const applied = yield* sql.withTransaction(
    Effect.gen(function* () {
      // A pipelined connection bounds lock waits and statements (PostgresClient.PIPELINED_SESSION);
      // a migration is exempt: it waits for another process's migrations on the lock below, and may
      // wait for a table lock or rewrite a table for longer than any request would.
      yield* sql`SET LOCAL lock_timeout = 0`
      yield* sql`SET LOCAL statement_timeout = 0`
      yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`
      return yield* migrator({ loader: Migrator.fromRecord(migrations), table: "schema_migrations" })
    })
  )
  if (applied.length > 0) {
    yield* Effect.logInfo(`Applied migrations: ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}`)
  }
  return applied
}).pipe(Effect.withSpan("Migrations.run"))
