import { mkdirSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Data, Effect } from "effect"

export class EmbeddedPostgresError extends Data.TaggedError("EmbeddedPostgresError")<{
  readonly message: string
  readonly cause: unknown
}> {}

export interface EmbeddedPostgres {
  readonly host: string
  readonly port: number
  readonly dataDir: string
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
 * `@effect/sql-pg` driver as a real server. Stopped and closed when the scope closes.
 */
export const startEmbeddedPostgres = (dataDir: string | undefined) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const dir = dataDir === undefined ? undefined : join(dataDir, "pglite")
      if (dir !== undefined) mkdirSync(dir, { recursive: true })
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
  ).pipe(Effect.map(({ info }): EmbeddedPostgres => info))
