import { existsSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { PGlite } from "@electric-sql/pglite"
import { Effect } from "effect"
import {
  adminToken,
  cli,
  linesAt,
  lockBytes,
  lockFile,
  putLink,
  readLock,
  serviceInFreshDir,
  startService,
  untilServing
} from "../../support/EmbeddedService.ts"
import { get } from "../../support/Http.ts"
import { itInTempDir, type Running, runNode, SERVER } from "../../support/NodeProcess.ts"

// Issue 13: one owner per embedded data directory (DATA_DIR/owner.json), and the CLI beside the
// running service goes through its HTTP API instead of opening the files a second time. Real
// processes on real sockets; each embedded first start takes several seconds (more under load), so
// a test walks one DATA_DIR through its steps and the timeouts are generous.

const STOP_MS = 60_000
const IN_USE = /is in use by process (\d+)/

/** Stops the service with SIGTERM: a clean exit (0). */
const stop = (server: Running) =>
  Effect.gen(function* () {
    yield* server.kill("SIGTERM")
    const exit = yield* server.exit(STOP_MS)
    assert.deepStrictEqual(exit, { code: 0, signal: null }, server.stdout())
  })

/** A port held by this test for the scope's life, so a service asked to listen on it finds it taken. */
const heldPort = Effect.acquireRelease(
  Effect.callback<{ port: number; close: () => void }>((resume) => {
    const holder = createServer()
    holder.listen(0, "127.0.0.1", () => {
      const address = holder.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({ port, close: () => holder.close() }))
    })
  }),
  ({ close }) => Effect.sync(close)
).pipe(Effect.map(({ port }) => port))

/** Opens the stopped service's database in this process, to read what it recorded. */
const openStopped = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.promise(() => PGlite.create({ dataDir: join(dataDir, "pglite") })),
    (db) => Effect.promise(() => db.close())
  )

const link = (dataDir: string, number: string, user: string) =>
  cli(dataDir, ["virtual-account", "link", "--number", number, "--user", user, "--currency", "NGN"])

describe("one owner per DATA_DIR; the CLI beside the running service", () => {
  itInTempDir(
    "the CLI's link, push and migrate go through the service that owns DATA_DIR; writes survive a restart; a graceful stop removes the lock",
    "datadir-through-",
    (dataDir) =>
      Effect.gen(function* () {
        const { server, owner, url, port } = yield* startService(dataDir)
        assert.strictEqual(owner.pid, server.pid)
        assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/)
        assert.lengthOf(
          linesAt(server.stdout(), "INFO").filter((line) => line.includes("First start: creating")),
          1
        )
        const token = yield* adminToken(dataDir)

        // A link made by the CLI is the service's at once: the admin endpoint sees it.
        const linked = yield* link(dataDir, "9900000001", "user-a")
        assert.strictEqual(linked.code, 0, linked.stderr)
        assert.strictEqual(linked.stdout, "created: linked 9900000001 to user-a (NGN)\n")
        assert.strictEqual(yield* putLink(port, token, "9900000001", "user-b"), 409)
        assert.strictEqual(yield* putLink(port, token, "9900000001", "user-a"), 200)
        // And a conflicting CLI link is refused by the service, with its message: exit 1.
        const conflict = yield* link(dataDir, "9900000001", "user-b")
        assert.strictEqual(conflict.code, 1, conflict.stderr)
        assert.strictEqual(conflict.stdout, "")
        assert.include(conflict.stderr, "already linked to another user")

        // Several CLI links at once beside the service: none is lost.
        const numbers = ["9900000011", "9900000012", "9900000013", "9900000014", "9900000015"]
        const results = yield* Effect.all(
          numbers.map((number) => link(dataDir, number, "user-a")),
          { concurrency: "unbounded" }
        )
        results.forEach((result, i) => {
          assert.strictEqual(result.code, 0, result.stderr)
          assert.strictEqual(result.stdout, `created: linked ${numbers[i]} to user-a (NGN)\n`)
        })
        for (const number of numbers) assert.strictEqual(yield* putLink(port, token, number, "user-b"), 409, number)

        // push send goes through the service (debug log says so), leaving the lock as it was.
        const lockBefore = lockBytes(dataDir)
        const pushed = yield* cli(
          dataDir,
          ["push", "send", "--type", "FCM", "--token", "device-token-0001", "--title", "Hi", "--body", "There"],
          { LOG_LEVEL: "debug" }
        )
        assert.strictEqual(pushed.code, 0, pushed.stderr)
        const sent = /^sent: (local-[0-9a-f-]{36})\n$/.exec(pushed.stdout)
        assert.isNotNull(sent, pushed.stdout)
        assert.isTrue(
          linesAt(pushed.stderr, "DEBUG").some((line) => line.includes(`owned by the service at ${url}`)),
          pushed.stderr
        )
        assert.strictEqual(lockBytes(dataDir), lockBefore)

        // db migrate has nothing to do: the service migrated the database when it started.
        const migrated = yield* cli(dataDir, ["db", "migrate"])
        assert.strictEqual(migrated.code, 0, migrated.stderr)
        assert.strictEqual(migrated.stdout, "Database is up to date\n")
        assert.strictEqual(lockBytes(dataDir), lockBefore)
        assert.strictEqual((yield* get(port, "/readyz")).status, 200)

        // A graceful stop removes the lock; the service's log lines all have its format.
        yield* stop(server)
        assert.isFalse(existsSync(lockFile(dataDir)), "the lock file is gone after a graceful stop")
        for (const line of server.stdout().split("\n")) {
          if (line !== "") assert.match(line, /^(\s|\[)/, "a log line or its continuation")
        }

        // Restarted on the same DATA_DIR: every link is still there.
        const again = yield* startService(dataDir)
        assert.notInclude(again.server.stdout(), "First start", "the database is reopened, not created")
        for (const number of ["9900000001", ...numbers]) {
          assert.strictEqual(yield* putLink(again.port, token, number, "user-a"), 200, number)
        }
        assert.strictEqual(yield* putLink(again.port, token, "9900000001", "user-b"), 409)
        yield* stop(again.server)
        assert.isFalse(existsSync(lockFile(dataDir)))

        // The push went into the service's database: the one attempt is recorded with its id.
        const db = yield* openStopped(dataDir)
        const deliveries = yield* Effect.promise(() =>
          db.query<{ token_type: string; provider_message_id: string }>(
            "SELECT token_type, provider_message_id FROM push_deliveries"
          )
        )
        assert.deepStrictEqual(deliveries.rows, [{ token_type: "FCM", provider_message_id: sent?.[1] as string }])
        const accounts = yield* Effect.promise(() =>
          db.query<{ n: number }>("SELECT count(*)::int AS n FROM virtual_accounts")
        )
        assert.strictEqual(accounts.rows[0]?.n, 1 + numbers.length)
      }),
    600_000
  )

  itInTempDir(
    "a second start on an owned DATA_DIR exits 1 with one ERROR line naming the owner and never opens the database; a port in use exits 1 with one line",
    "datadir-second-",
    (dataDir) =>
      Effect.gen(function* () {
        const { server, url, port } = yield* startService(dataDir)
        const lockBefore = lockBytes(dataDir)

        const started = Date.now()
        const second = yield* runNode(SERVER, [], { HOST: "127.0.0.1", PORT: "0", DATA_DIR: dataDir }, 60_000)
        const took = Date.now() - started
        const output = second.stdout + second.stderr
        assert.strictEqual(second.code, 1, output)
        // Node's own start-up is most of this; on a quiet machine it is about two seconds.
        assert.isBelow(took, 20_000, "the second start fails at once, without waiting for anything")
        const errors = linesAt(output, "ERROR")
        assert.lengthOf(errors, 1, output)
        assert.include(errors[0], `is in use by process ${server.pid} serving ${url}`)
        assert.notMatch(output, /^\s+at /m, "no stack")
        // It never touched the database: no creation, no opening, no migration, no listening.
        for (const never of ["First start", "Embedded PostgreSQL", "Applied migrations", "Listening on"]) {
          assert.notInclude(output, never)
        }

        // The owner keeps serving and keeps its lock.
        assert.strictEqual((yield* get(port, "/readyz")).status, 200)
        assert.strictEqual(lockBytes(dataDir), lockBefore)
        yield* stop(server)

        // A port in use: one line naming the port, exit 1, and the failed start gives its lock back.
        const taken = yield* heldPort
        const blocked = yield* runNode(
          SERVER,
          [],
          { HOST: "127.0.0.1", PORT: String(taken), DATA_DIR: dataDir },
          180_000
        )
        const blockedOutput = blocked.stdout + blocked.stderr
        assert.strictEqual(blocked.code, 1, blockedOutput)
        const blockedErrors = linesAt(blockedOutput, "ERROR")
        assert.lengthOf(blockedErrors, 1, blockedOutput)
        assert.match(blockedErrors[0] as string, new RegExp(`port ${taken} is in use: set PORT to a free port$`))
        assert.notMatch(blockedOutput, /^\s+at /m, "no stack")
        assert.isFalse(existsSync(lockFile(dataDir)), "a failed start leaves no lock behind")
      }),
    600_000
  )

  itInTempDir(
    "after a SIGKILL the stale lock is taken over by the next start, with one WARN line, and the data written before is there",
    "datadir-stale-",
    (dataDir) =>
      Effect.gen(function* () {
        const first = yield* startService(dataDir)
        const token = yield* adminToken(dataDir)
        assert.strictEqual(yield* putLink(first.port, token, "9900000101", "user-a"), 201)

        yield* first.server.kill("SIGKILL")
        assert.deepStrictEqual(yield* first.server.exit(STOP_MS), { code: null, signal: "SIGKILL" })
        assert.strictEqual(readLock(dataDir)?.pid, first.server.pid, "a killed process leaves its lock")

        const second = yield* startService(dataDir)
        assert.strictEqual(second.owner.pid, second.server.pid)
        const takeOvers = linesAt(second.server.stdout(), "WARN").filter((line) => line.includes("Took over the lock"))
        assert.lengthOf(takeOvers, 1, second.server.stdout())
        assert.include(takeOvers[0], `Took over the lock on ${dataDir} from process ${first.server.pid}`)
        assert.strictEqual(yield* putLink(second.port, token, "9900000101", "user-a"), 200)
        assert.strictEqual(yield* putLink(second.port, token, "9900000101", "user-b"), 409)

        // The CLI follows the new owner.
        const linked = yield* link(dataDir, "9900000102", "user-a")
        assert.strictEqual(linked.code, 0, linked.stderr)
        assert.strictEqual(yield* putLink(second.port, token, "9900000102", "user-a"), 200)
        yield* stop(second.server)
        assert.isFalse(existsSync(lockFile(dataDir)))
      }),
    600_000
  )

  itInTempDir(
    "two db migrate racing on a fresh DATA_DIR: one creates and migrates it, the other is told who owns it",
    "datadir-race-cli-",
    (dataDir) =>
      Effect.gen(function* () {
        const results = yield* Effect.all([cli(dataDir, ["db", "migrate"]), cli(dataDir, ["db", "migrate"])], {
          concurrency: "unbounded"
        })
        const applied = results.filter((result) => result.code === 0 && result.stdout.startsWith("Applied "))
        assert.lengthOf(applied, 1, JSON.stringify(results))
        const other = results.find((result) => result !== applied[0])
        // Refused while the first held the directory (the usual case), or run after it was done.
        const refused = other?.code === 1 && IN_USE.test(other.stderr)
        const after = other?.code === 0 && other.stdout === "Database is up to date\n"
        assert.isTrue(refused || after, JSON.stringify(other))
        assert.strictEqual(other?.stdout.includes("Applied"), false)

        // Both gone, no lock left; the database is whole and fully migrated.
        assert.isFalse(existsSync(lockFile(dataDir)))
        const check = yield* cli(dataDir, ["db", "migrate"])
        assert.strictEqual(check.code, 0, check.stderr)
        assert.strictEqual(check.stdout, "Database is up to date\n")
      }),
    600_000
  )

  it.live(
    "a CLI command while the service that owns DATA_DIR is still starting is told who owns it, and goes through it once it listens",
    () =>
      Effect.gen(function* () {
        const { dataDir, service } = yield* serviceInFreshDir("datadir-starting-")
        // The service holds the lock from before it creates the database until it stops.
        yield* Effect.gen(function* () {
          while (readLock(dataDir)?.pid !== service.pid) yield* Effect.sleep("20 millis")
        }).pipe(Effect.timeout("180 seconds"))
        const early = yield* link(dataDir, "9900000201", "user-a")
        // Refused naming the service (no URL yet: the usual case on a first start), or gone through it.
        const refused = early.code === 1 && IN_USE.exec(early.stderr)?.[1] === String(service.pid)
        const through = early.code === 0 && early.stdout === "created: linked 9900000201 to user-a (NGN)\n"
        assert.isTrue(refused || through, JSON.stringify(early))
        assert.notInclude(service.stdout(), "ERROR")

        const { port } = yield* untilServing(dataDir, service)
        const later = yield* link(dataDir, "9900000201", "user-a")
        assert.strictEqual(later.code, 0, later.stderr)
        assert.match(later.stdout, refused ? /^created: / : /^already linked: /)
        assert.strictEqual(yield* putLink(port, yield* adminToken(dataDir), "9900000201", "user-b"), 409)
        yield* stop(service)
      }),
    600_000
  )

  it.live(
    "a service and a db migrate racing on a fresh DATA_DIR: exactly one of them creates the database",
    () =>
      Effect.gen(function* () {
        const { dataDir, service } = yield* serviceInFreshDir("datadir-race-service-")
        const migrate = yield* cli(dataDir, ["db", "migrate"])
        // The service either comes up (it owns the directory) or has exited (the CLI owned it).
        const serving = yield* Effect.gen(function* () {
          for (;;) {
            const owner = readLock(dataDir)
            if (owner?.pid === service.pid && owner.url !== undefined) return true
            yield* Effect.sleep("100 millis")
          }
        }).pipe(Effect.raceFirst(service.exit(180_000).pipe(Effect.as(false))))
        const serviceOutput = service.stdout() + service.stderr()

        const serviceCreated = serviceOutput.includes("First start: creating")
        const cliCreated = migrate.code === 0 && migrate.stdout.startsWith("Applied ")
        assert.notStrictEqual(
          serviceCreated,
          cliCreated,
          `exactly one creates it${serviceOutput}${JSON.stringify(migrate)}`
        )
        if (serving) {
          // The service owns it: the CLI was refused naming it, or went through it once it had a URL.
          const refused = migrate.code === 1 && IN_USE.exec(migrate.stderr)?.[1] === String(service.pid)
          const through = migrate.code === 0 && migrate.stdout === "Database is up to date\n"
          assert.isTrue(refused || through || cliCreated, JSON.stringify(migrate))
          yield* stop(service)
        } else {
          // The CLI owned it: the service exited 1 with the one line naming the owner.
          assert.isTrue(cliCreated, JSON.stringify(migrate))
          assert.strictEqual((yield* service.exit(STOP_MS)).code, 1)
          const errors = linesAt(serviceOutput, "ERROR")
          assert.lengthOf(errors, 1, serviceOutput)
          assert.match(errors[0] as string, IN_USE)
          assert.notInclude(serviceOutput, "Embedded PostgreSQL")
        }
        assert.isFalse(existsSync(lockFile(dataDir)))
      }),
    600_000
  )
})
