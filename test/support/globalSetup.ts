import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import type { TestProject } from "vitest/node"

/**
 * Decides, once per run, where database tests run. With `CI=true` they must run on the real
 * PostgreSQL at 127.0.0.1:5432 (or `TEST_DATABASE_ADMIN_URL`), and the run fails if it is not
 * there. Elsewhere they use it when it answers, else the embedded PGlite.
 */
export default async function setup(project: TestProject) {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
  const reachable = await Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`SELECT 1`
      return true
    }).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(adminUrl), maxConnections: 1, connectTimeout: "3 seconds" })),
      Effect.scoped,
      Effect.timeout("5 seconds"),
      Effect.orElseSucceed(() => false)
    )
  )
  const ci = process.env.CI === "true"
  if (!reachable && ci) {
    throw new Error(`CI=true but PostgreSQL is not reachable at ${adminUrl}: database tests must run on it`)
  }
  const mode = reachable ? "postgres" : "pglite"
  console.log(`[test] database tests run on ${mode === "postgres" ? `PostgreSQL (${adminUrl})` : "embedded PGlite"}`)
  project.provide("databaseMode", mode)
  project.provide("databaseAdminUrl", adminUrl)
  project.provide("runId", `${Date.now().toString(36)}_${process.pid}`)
}

declare module "vitest" {
  export interface ProvidedContext {
    databaseMode: "postgres" | "pglite"
    databaseAdminUrl: string
    runId: string
  }
}
