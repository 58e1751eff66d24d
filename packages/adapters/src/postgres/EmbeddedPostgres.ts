import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Data, Effect } from "effect"
import * as DataDirLock from "./DataDirLock.ts"
import { makePrivate, restrictUmask } from "./PrivateFiles.ts"

export class EmbeddedPostgresError extends Data.TaggedError("EmbeddedPostgresError")<{
  readonly message: string
  readonly cause: unknown
}> {}

export interface EmbeddedPostgres {
  /** The Unix socket the database is served on, inside a directory only this user can enter. */
  readonly socketPath: string
  readonly dataDir: string
  /** The lock this process holds on the data directory (none in memory). */
  readonly lock: DataDirLock.DataDirLock | undefined
}

/** The name PostgreSQL gives its socket, so that `psql -h "$DATA_DIR"` finds it. */
export const SOCKET_NAME = ".s.PGSQL.5432"

/**
 * The longest socket path the kernel takes (`sun_path`: 108 bytes on Linux, 104 on macOS, with
 * its terminating NUL), with a margin.
 */
const MAX_SOCKET_PATH_BYTES = 100

/**
 * Where the socket goes: in the data directory (0700, so only its owner can connect), or, when
 * that path is too long for a socket or there is no data directory (in memory), in a fresh
 * directory of the system's temporary directory, which mkdtemp creates 0700 as well.
 */
const socketLocation = (dataDir: string | undefined) => {
  if (dataDir !== undefined) {
    const path = join(resolve(dataDir), SOCKET_NAME)
    if (Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES) return { path, temporaryDir: undefined }
  }
  const temporaryDir = mkdtempSync(join(tmpdir(), "payments-gaming-pg-"))
  return { path: join(temporaryDir, SOCKET_NAME), temporaryDir }
}

/**
 * An embedded PostgreSQL (PGlite, persisted under `dataDir`, or in memory when `dataDir` is
 * `undefined`) served on a Unix socket, so the service reaches it through the same
 * `@effect/sql-pg` driver as a real server. The data directory is locked first (DataDirLock): a
 * second process never opens the files.
 *
 * Private to the user running it (issue 34): PGlite has no authentication, and on a loopback TCP
 * port any local user could connect as superuser. Its socket lives in the 0700 data directory, so
 * the kernel refuses any other user; the socket server admits one connection, which the service's
 * pool opens at start and never lets go (PostgresClient.ts), so no other process of this user takes
 * the slot either while the service runs. Every file is private too: the umask, and a repair of
 * what was left open (one log line counting it). Stopped, closed and unlocked when the scope closes.
 */
export const startEmbeddedPostgres = (dataDir: string | undefined) =>
  Effect.gen(function* () {
    restrictUmask()
    const lock = dataDir === undefined ? undefined : yield* DataDirLock.acquire(dataDir)
    if (dataDir !== undefined) {
      const repaired = yield* Effect.try({
        try: () => makePrivate(resolve(dataDir)),
        catch: (cause) => new EmbeddedPostgresError({ message: `could not make ${resolve(dataDir)} private`, cause })
      })
      if (repaired > 0) {
        yield* Effect.logWarning(
          `Made ${repaired} file${repaired === 1 ? "" : "s"} and director${repaired === 1 ? "y" : "ies"} under ${resolve(dataDir)} private to this user (0700 directories, 0600 files): other users could read them`
        )
      }
    }
    const info = yield* open(dataDir === undefined ? undefined : join(dataDir, "pglite"), dataDir)
    return { ...info, lock }
  })

const open = (dir: string | undefined, dataDir: string | undefined) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      if (dir !== undefined) {
        // initdb inside WebAssembly: the one slow step of a first start, so it is announced.
        if (!existsSync(join(dir, "PG_VERSION"))) {
          yield* Effect.logInfo(`First start: creating the embedded database in ${dir} (a few seconds)`)
        }
        mkdirSync(dir, { recursive: true, mode: 0o700 })
      }
      const db = yield* Effect.tryPromise({
        try: () => PGlite.create(dir === undefined ? {} : { dataDir: dir }),
        catch: (cause) =>
          new EmbeddedPostgresError({
            message: `could not open the embedded database in ${dir ?? "memory"} (is another process using it?)`,
            cause
          })
      })
      // PGlite chose the modes of what it unpacked or rewrote while opening; the data directory
      // (0700) kept them out of reach meanwhile. Not counted: this is PGlite's doing, every start.
      if (dir !== undefined) makePrivate(dir)
      const socket = socketLocation(dataDir)
      // A socket left by a process that died: we hold the lock, so nobody else is serving on it.
      rmSync(socket.path, { force: true })
      const server = new PGLiteSocketServer({ db, path: socket.path, maxConnections: 1 })
      yield* Effect.tryPromise({
        try: () => server.start(),
        catch: (cause) => new EmbeddedPostgresError({ message: `could not listen on ${socket.path}`, cause })
      })
      // 0600 like every other file: connecting needs only write permission, and the directory keeps
      // other users out in any case.
      chmodSync(socket.path, 0o600)
      return { db, server, socket, info: { socketPath: socket.path, dataDir: dir ?? ":memory:" } }
    }),
    ({ db, server, socket }) =>
      Effect.promise(async () => {
        await server.stop()
        await db.close()
        rmSync(socket.path, { force: true })
        if (socket.temporaryDir !== undefined) rmSync(socket.temporaryDir, { recursive: true, force: true })
        // What PGlite wrote while closing gets the same treatment.
        if (dir !== undefined) makePrivate(dir)
      })
  ).pipe(Effect.map(({ info }) => info))
