import { existsSync, mkdirSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Data, Effect } from "effect"
import * as DataDirLock from "./DataDirLock.ts"

export class EmbeddedPostgresError extends Data.TaggedError("EmbeddedPostgresError")<{
  readonly message: string
  readonly cause: unknown
}> {}

export interface EmbeddedPostgres {
  readonly host: string
  readonly port: number
  readonly dataDir: string
  /** The lock this process holds on the data directory (none in memory). */
  readonly lock: DataDirLock.DataDirLock | undefined
}

// PGLiteSocketServer reports the port it was given, not the one the kernel chose, so a free port is
// found first. The tiny window between closing the probe and PGlite listening is acceptable for a
// development database.
const freePort = Effect.callback<number, EmbeddedPostgresError>((resume) => {
  const probe = createServer()
  probe.once("error", (cause) => resume(Effect.fail(new EmbeddedPostgresError({ message: "no free port", cause }))))
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

/**
 * An embedded PostgreSQL (PGlite, persisted under `dataDir`, or in memory when `dataDir` is
 * `undefined`) served on a loopback socket, so the service reaches it through the same
 * `@effect/sql-pg` driver as a real server. The data directory is locked first (DataDirLock): a
 * second process never opens the files. Stopped, closed and unlocked when the scope closes.
 */
export const startEmbeddedPostgres = (dataDir: string | undefined) =>
  Effect.gen(function* () {
    const lock = dataDir === undefined ? undefined : yield* DataDirLock.acquire(dataDir)
    const info = yield* open(dataDir === undefined ? undefined : join(dataDir, "pglite"))
    return { ...info, lock }
  })

const open = (dir: string | undefined) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      if (dir !== undefined) {
        // initdb inside WebAssembly: the one slow step of a first start, so it is announced.
        if (!existsSync(join(dir, "PG_VERSION"))) {
          yield* Effect.logInfo(`First start: creating the embedded database in ${dir} (a few seconds)`)
        }
        mkdirSync(dir, { recursive: true })
      }
      const db = yield* Effect.tryPromise({
        try: () => PGlite.create(dir === undefined ? {} : { dataDir: dir }),
        catch: (cause) =>
          new EmbeddedPostgresError({
            message: `could not open the embedded database in ${dir ?? "memory"} (is another process using it?)`,
            cause
          })
      })
      const port = yield* freePort
      const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port, maxConnections: 1 })
      yield* Effect.tryPromise({
        try: () => server.start(),
        catch: (cause) => new EmbeddedPostgresError({ message: `could not listen on 127.0.0.1:${port}`, cause })
      })
      return { db, server, info: { host: "127.0.0.1", port, dataDir: dir ?? ":memory:" } }
    }),
    ({ db, server }) =>
      Effect.promise(async () => {
        await server.stop()
        await db.close()
      })
  ).pipe(Effect.map(({ info }) => info))
