import { spawnSync } from "node:child_process"
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { SqlClient } from "effect/sql"
import { SOCKET_NAME } from "../../src/postgres/EmbeddedPostgres.ts"
import { listeningOf } from "../../src/postgres/OwnerProcess.ts"
import * as PostgresClient from "../../src/postgres/PostgresClient.ts"
import { makePrivate } from "../../src/postgres/PrivateFiles.ts"

// Issue 34, findings 1 and 2, as a local user would attack them: the embedded database's files
// readable by anyone, and its socket open to any local connection with one slot to take.

const freshDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "embedded-private-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** Every entry under `root` (itself included) with its permission bits. */
const modes = (root: string): Array<{ path: string; mode: number; kind: "dir" | "file" | "socket" | "other" }> => {
  const stats = lstatSync(root)
  const kind = stats.isDirectory() ? "dir" : stats.isFile() ? "file" : stats.isSocket() ? "socket" : "other"
  const here = { path: root, mode: stats.mode & 0o7777, kind } as const
  return stats.isDirectory() ? [here, ...readdirSync(root).flatMap((name) => modes(join(root, name)))] : [here]
}

/** Directories 0700, files and the socket 0600: nothing for any other user. */
const assertPrivate = (root: string) => {
  const entries = modes(root)
  const open = entries.filter(({ mode, kind }) => mode !== (kind === "dir" ? 0o700 : 0o600))
  assert.deepStrictEqual(
    open.map(({ path, mode }) => `${path} ${mode.toString(8)}`),
    [],
    `${entries.length} entries checked`
  )
  return entries.length
}

/** A client on the database's socket, as another local program would open one. */
const intruder = (socketPath: string) =>
  Effect.scoped(
    Effect.gen(function* () {
      const sql = yield* PgClient.make({
        path: socketPath,
        username: "postgres",
        database: "postgres",
        maxConnections: 1,
        connectTimeout: "5 seconds"
      })
      return yield* sql<{ one: number }>`SELECT 1 AS one`
    })
  ).pipe(Effect.provide(Reactivity.layer), Effect.result)

describe("the embedded database is private to its owner", () => {
  it.effect("makePrivate takes group and other bits off a tree, counts what it changed, follows no link", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* freshDir
        mkdirSync(join(dir, "sub"))
        writeFileSync(join(dir, "sub", "a"), "a")
        writeFileSync(join(dir, "b"), "b")
        chmodSync(join(dir, "sub"), 0o755)
        chmodSync(join(dir, "sub", "a"), 0o666)
        chmodSync(join(dir, "b"), 0o600)
        chmodSync(dir, 0o755)
        const outside = yield* freshDir
        writeFileSync(join(outside, "target"), "t")
        chmodSync(join(outside, "target"), 0o644)
        symlinkSync(join(outside, "target"), join(dir, "link"))
        assert.strictEqual(makePrivate(dir), 3)
        assert.strictEqual(lstatSync(dir).mode & 0o777, 0o700)
        assert.strictEqual(lstatSync(join(dir, "sub")).mode & 0o777, 0o700)
        assert.strictEqual(lstatSync(join(dir, "sub", "a")).mode & 0o777, 0o600)
        assert.strictEqual(lstatSync(join(dir, "b")).mode & 0o777, 0o600)
        // The link's target, outside the tree, is not touched.
        assert.strictEqual(lstatSync(join(outside, "target")).mode & 0o777, 0o644)
        assert.strictEqual(makePrivate(dir), 0)
      })
    )
  )

  it.effect(
    "makePrivate repairs the target of a DATA_DIR that is itself a link (a volume), still following no link below",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const volume = yield* freshDir
          writeFileSync(join(volume, "a"), "a")
          chmodSync(join(volume, "a"), 0o644)
          chmodSync(volume, 0o755)
          const holder = yield* freshDir
          const linked = join(holder, "data")
          symlinkSync(volume, linked)
          assert.strictEqual(makePrivate(linked), 2)
          assert.strictEqual(lstatSync(volume).mode & 0o777, 0o700)
          assert.strictEqual(lstatSync(join(volume, "a")).mode & 0o777, 0o600)
        })
      )
  )

  it.live(
    "a loose DATA_DIR is repaired with one log line; every file is 0600, every directory 0700; the socket is the only way in, and its one slot stays the service's after the pool's idle timeout",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dataDir = yield* freshDir
          // What an earlier version left: DATA_DIR 0755 and a file anyone may write.
          chmodSync(dataDir, 0o755)
          writeFileSync(join(dataDir, "notes.txt"), "left by hand")
          chmodSync(join(dataDir, "notes.txt"), 0o666)
          mkdirSync(join(dataDir, "backups"), { mode: 0o755 })
          chmodSync(join(dataDir, "backups"), 0o755)

          const logs: Array<string> = []
          const logger = Logger.make(({ message }) => {
            logs.push(Array.isArray(message) ? message.join(" ") : String(message))
          })
          const context = yield* Layer.build(
            PostgresClient.layer({ url: undefined, dataDir, idleTimeout: "50 millis" }).pipe(
              Layer.provide(Logger.layer([logger]))
            )
          )
          const query = Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            return yield* sql<{ one: number }>`SELECT 1 AS one`
          }).pipe(Effect.provide(context))
          assert.deepStrictEqual(yield* query, [{ one: 1 }])

          const repaired = logs.filter((line) => line.startsWith("Made "))
          assert.deepStrictEqual(repaired, [
            `Made 3 files and directories under ${dataDir} private to this user (0700 directories, 0600 files): other users could read them`
          ])
          const checked = assertPrivate(dataDir)
          assert.isAbove(checked, 900, "the whole database was checked")

          // Served on a Unix socket in DATA_DIR; this process listens on no TCP port for it.
          const socketPath = join(dataDir, SOCKET_NAME)
          assert.isTrue(lstatSync(socketPath).isSocket())
          assert.deepStrictEqual(listeningOf(process.pid), [])

          // Past the pool's idle timeout the service keeps its connection, so the one slot is never
          // free for another program, and the service still answers.
          yield* Effect.sleep("300 millis")
          const attempt = yield* intruder(socketPath)
          assert.strictEqual(attempt._tag, "Failure", JSON.stringify(attempt))
          assert.deepStrictEqual(yield* query, [{ one: 1 }])

          // Another user cannot even reach the socket (the kernel refuses: DATA_DIR is 0700). Only
          // root can start a process as another user; elsewhere the modes above are what holds.
          if (process.getuid?.() === 0) {
            const probe = spawnSync(
              process.execPath,
              [
                "-e",
                `require("node:net").connect(${JSON.stringify(socketPath)}).on("connect", () => { console.log("connected"); process.exit(0) }).on("error", (e) => { console.log(e.code); process.exit(0) })`
              ],
              { uid: 65534, gid: 65534, encoding: "utf8", timeout: 20_000 }
            )
            assert.strictEqual(probe.stdout.trim(), "EACCES", probe.stderr)
          }
        })
      ),
    180_000
  )
})
