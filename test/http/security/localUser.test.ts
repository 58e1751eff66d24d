import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { existsSync, lstatSync, readdirSync, writeFileSync } from "node:fs"
import { createServer, type IncomingHttpHeaders } from "node:http"
import { join } from "node:path"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { SOCKET_NAME } from "@payments-gaming/adapters/postgres/EmbeddedPostgres"
import { listeningOf } from "@payments-gaming/adapters/postgres/OwnerProcess"
import { TEST_SECRETS } from "@payments-gaming/adapters/test/support/TestSecrets"
import { Effect } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { cli, lockFile, untilServing } from "../../support/EmbeddedService.ts"
import { get } from "../../support/Http.ts"
import { itInTempDir, type Running, SERVER, spawnNode, tempDir } from "../../support/NodeProcess.ts"

// Issue 34, findings 1, 2 and 4, as another local user (or a stray program) would attack: the
// embedded database's files and socket, and the CLI's admin credentials. Real processes, real
// files, real sockets.

const ROOT = process.getuid?.() === 0
/** `nobody`: the other local user, when this test runs as root and so may start a process as one. */
const NOBODY = 65534

/** Every entry under `root` (itself included) whose mode is not 0700 (directories) or 0600 (the rest). */
const notPrivate = (root: string): { checked: number; open: Array<string> } => {
  const open: Array<string> = []
  let checked = 0
  const visit = (path: string) => {
    const stats = lstatSync(path)
    checked++
    const mode = stats.mode & 0o7777
    if (mode !== (stats.isDirectory() ? 0o700 : 0o600)) open.push(`${path} ${mode.toString(8)}`)
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name))
  }
  visit(root)
  return { checked, open }
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
      return yield* sql`CREATE TABLE planted (id int)`
    })
  ).pipe(Effect.provide(Reactivity.layer), Effect.result)

/** What `nobody` gets trying `script` (node -e): its stdout. */
const asNobody = (script: string) =>
  spawnSync(process.execPath, ["-e", script], { uid: NOBODY, gid: NOBODY, encoding: "utf8", timeout: 20_000 })

/** An HTTP listener the test controls, standing in for a foreign service: it records every request. */
const recordingListener = Effect.acquireRelease(
  Effect.callback<{ port: number; requests: Array<IncomingHttpHeaders>; close: () => void }>((resume) => {
    const requests: Array<IncomingHttpHeaders> = []
    const server = createServer((request, response) => {
      requests.push(request.headers)
      response.writeHead(200, { "content-type": "application/json" })
      response.end('{"data":{"items":[],"nextCursor":null}}')
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({ port, requests, close: () => server.close() }))
    })
  }),
  ({ close }) => Effect.sync(close)
)

/** A live process that listens on nothing (`sleep`), as this user or as `nobody`; killed with the scope. */
const idleProcess = (asUser?: number) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      spawn("sleep", ["600"], { stdio: "ignore", ...(asUser === undefined ? {} : { uid: asUser, gid: asUser }) })
    ),
    (child: ChildProcess) => Effect.sync(() => child.kill("SIGKILL"))
  ).pipe(Effect.map((child) => child.pid as number))

/** The lock a foreign service would plant, beside development secrets already there (so the CLI logs nothing of its own). */
const writeOwner = (dataDir: string, pid: number, url: string) => {
  writeFileSync(join(dataDir, "dev-secrets.json"), JSON.stringify(TEST_SECRETS), { mode: 0o600 })
  writeFileSync(
    lockFile(dataDir),
    JSON.stringify({ pid, startedAt: new Date().toISOString(), nonce: "planted-by-the-test", url })
  )
}

const PUSH = ["push", "send", "--type", "FCM", "--token", "f".repeat(100), "--title", "t", "--body", "b"]

/** The CLI's admin commands on `dataDir`: each exits 1 with one line on stderr naming the refusal. */
const assertRefused = (dataDir: string, reason: RegExp) =>
  Effect.gen(function* () {
    for (const args of [["webhook", "list"], PUSH]) {
      const result = yield* cli(dataDir, args)
      assert.strictEqual(result.code, 1, JSON.stringify(result))
      assert.strictEqual(result.stdout, "")
      const lines = result.stderr.split("\n").filter((line) => line !== "")
      assert.lengthOf(lines, 1, result.stderr)
      assert.match(
        lines[0] as string,
        /^error: not sending credentials to the service .*owner\.json names \(pid \d+\): /
      )
      assert.match(lines[0] as string, reason)
    }
  })

const stop = (server: Running) =>
  Effect.gen(function* () {
    yield* server.kill("SIGTERM")
    assert.deepStrictEqual(yield* server.exit(60_000), { code: 0, signal: null }, server.stdout())
  })

describe("a local user against the embedded database", () => {
  itInTempDir(
    "after a start every file under DATA_DIR is 0600 and every directory 0700; the database listens on no TCP port; a second connection to its socket is refused; the service stays ready",
    "local-user-service-",
    (dataDir) =>
      Effect.gen(function* () {
        // Bound to every address: what it advertises for the CLI is still the loopback URL.
        const spawned = yield* spawnNode(SERVER, [], { HOST: "0.0.0.0", PORT: "0", DATA_DIR: dataDir })
        const { server, port, url } = yield* untilServing(dataDir, spawned)
        assert.strictEqual(url, `http://127.0.0.1:${port}`)

        const { checked, open } = notPrivate(dataDir)
        assert.deepStrictEqual(open, [], `${checked} entries checked`)
        assert.isAbove(checked, 900, "the whole database was checked")
        for (const name of ["owner.json", "dev-secrets.json", "pglite", SOCKET_NAME]) {
          assert.isTrue(existsSync(join(dataDir, name)), name)
        }

        // The only TCP port the service listens on is its HTTP port: the database has none.
        assert.deepStrictEqual(
          listeningOf(server.pid)?.map((socket) => socket.port),
          [port]
        )

        // This user's other programs find the one slot taken, and plant nothing.
        const attempt = yield* intruder(join(dataDir, SOCKET_NAME))
        assert.strictEqual(attempt._tag, "Failure", JSON.stringify(attempt))
        if (ROOT) {
          // Another user is refused by the kernel, and cannot read a file either.
          const socket = asNobody(
            `require("node:net").connect(${JSON.stringify(join(dataDir, SOCKET_NAME))}).on("connect", () => console.log("connected")).on("error", (e) => console.log(e.code))`
          )
          assert.strictEqual(socket.stdout.trim(), "EACCES", socket.stderr)
          const read = asNobody(
            `try { require("node:fs").readFileSync(${JSON.stringify(join(dataDir, "pglite", "global", "pg_control"))}); console.log("read") } catch (e) { console.log(e.code) }`
          )
          assert.strictEqual(read.stdout.trim(), "EACCES", read.stderr)
        }
        assert.strictEqual((yield* get(port, "/readyz")).status, 200)
        // And the CLI, beside it, trusts it: its own user's process, listening where owner.json says.
        const listed = yield* cli(dataDir, ["webhook", "list"])
        assert.deepStrictEqual([listed.code, listed.stderr], [0, "No webhook events\n"])

        yield* stop(server)
        assert.isFalse(existsSync(join(dataDir, SOCKET_NAME)), "the socket is removed at stop")
        assert.deepStrictEqual(notPrivate(dataDir).open, [])
      }),
    600_000
  )
})

describe("the CLI sends credentials only to its own service", () => {
  itInTempDir(
    "owner.json naming a listener the test controls, with the pid of a live process of ours that does not listen there: nothing is sent, exit 1, one line",
    "local-user-cli-",
    (dataDir) =>
      Effect.gen(function* () {
        const listener = yield* recordingListener
        writeOwner(dataDir, yield* idleProcess(), `http://127.0.0.1:${listener.port}`)
        yield* assertRefused(dataDir, new RegExp(`is not listening on 127\\.0\\.0\\.1:${listener.port}\\. `))
        assert.lengthOf(listener.requests, 0)
      }),
    120_000
  )

  itInTempDir(
    "owner.json naming a URL that is not plain HTTP on a loopback address: refused even though its pid listens there",
    "local-user-cli-url-",
    (dataDir) =>
      Effect.gen(function* () {
        const listener = yield* recordingListener
        // This test process does listen on that port: only the URL's shape refuses it.
        for (const url of [`http://localhost:${listener.port}`, `https://127.0.0.1:${listener.port}`]) {
          writeOwner(dataDir, process.pid, url)
          yield* assertRefused(dataDir, /is not (on loopback|plain http)/)
        }
        assert.lengthOf(listener.requests, 0)
      }),
    120_000
  )

  it.live.runIf(ROOT)(
    "owner.json naming another user's live process: nothing is sent, exit 1, one line",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* tempDir("local-user-cli-other-")
        const listener = yield* recordingListener
        writeOwner(dataDir, yield* idleProcess(NOBODY), `http://127.0.0.1:${listener.port}`)
        yield* assertRefused(dataDir, /belongs to another user \(uid 65534\)/)
        assert.lengthOf(listener.requests, 0)
      }),
    120_000
  )
})
