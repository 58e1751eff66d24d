import { connect } from "node:net"
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
  project.provide("redisAvailable", await redisAnswers(ci))
  project.provide("databaseAdminUrl", adminUrl)
  project.provide("runId", `${Date.now().toString(36)}_${process.pid}`)
}

/**
 * Whether the Redis of the rate-limit tests answers (TEST_REDIS_URL, default 127.0.0.1:6379). CI
 * has one and must run those tests; a laptop without Redis skips them, saying so.
 */
const redisAnswers = async (ci: boolean) => {
  const url = new URL(process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379")
  const answered = await new Promise<boolean>((resolve) => {
    const socket = connect(Number(url.port || 6379), url.hostname, () => socket.write("PING\r\n"))
    socket.setTimeout(2000, () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("data", (data) => {
      socket.destroy()
      resolve(data.toString().startsWith("+PONG"))
    })
    socket.once("error", () => resolve(false))
  })
  if (!answered && ci)
    throw new Error(`CI=true but Redis is not reachable at ${url.host}: the rate-limit tests need it`)
  if (!answered) console.log(`[test] Redis not reachable at ${url.host}: the shared rate-limit tests are skipped`)
  return answered
}

declare module "vitest" {
  export interface ProvidedContext {
    redisAvailable: boolean
    databaseMode: "postgres" | "pglite"
    databaseAdminUrl: string
    runId: string
  }
}
