import { readFileSync } from "node:fs"
import { join } from "node:path"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import { signWebhook, TEST_SECRETS, tokenFor } from "@payments-gaming/adapters/test/support/TestSecrets"
import { WEBHOOK_PATH } from "@payments-gaming/api/Paths"
import { Duration, Effect, Fiber, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { inject } from "vitest"
import { freePort, get, pollUntil, send, tryConnect } from "../../support/Http.ts"
import { closedWithin, exchange, openConnection } from "../../support/KeptAliveConnection.ts"
import { itInTempDir, SERVER, spawnNode, tempDir } from "../../support/NodeProcess.ts"
import { tcpProxy } from "../../support/TcpProxy.ts"

const ENVELOPE_KEYS = ["timestamp", "status", "success", "message", "data"]
const LISTENING = /Listening on http:\/\/127\.0\.0\.1:(\d+)/
const SECRETS = TEST_SECRETS
const sign = (body: string) => signWebhook(body)

/** A stop asked for by SIGTERM is a clean exit (RunService.ts, behind apps/http/src/main.js, maps the interruption to 0). */
const SIGTERM_EXIT_CODE = 0

/** A fresh database, its name, and an admin connection (to the server's maintenance database). */
const freshDatabase = Effect.gen(function* () {
  const url = yield* freshDatabaseUrl
  const admin = yield* PgClient.make({ url: Redacted.make(inject("databaseAdminUrl")), maxConnections: 1 })
  return { url, name: new URL(url).pathname.slice(1), admin }
}).pipe(Effect.provide(Reactivity.layer))

/** Starts the server and waits for the port it announces. */
const startServer = (env: Record<string, string>, startupMs = 30_000) =>
  Effect.gen(function* () {
    const server = yield* spawnNode(SERVER, [], { HOST: "127.0.0.1", ...env })
    const match = yield* server.waitForStdout(LISTENING, startupMs)
    return { server, port: Number(match[1]) }
  })

/**
 * The server on a fresh database reached through a TCP proxy the test can slow down, so a request
 * can be held in flight or the database made to hang.
 */
const serverBehindProxy = (dataDirPrefix: string, env: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const database = new URL((yield* freshDatabase).url)
    const proxy = yield* tcpProxy({ host: database.hostname, port: Number(database.port || 5432) })
    database.port = String(proxy.port)
    const started = yield* startServer({
      ...env,
      PORT: String(yield* freePort),
      DATABASE_URL: database.toString(),
      DATA_DIR: yield* tempDir(dataDirPrefix)
    })
    return { ...started, proxy }
  })

/** A JSON object on one line, as a log collector reads it. */
const isJsonObjectLine = (line: string) => {
  try {
    const parsed: unknown = JSON.parse(line)
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
  } catch {
    return false
  }
}

/** A fresh database and a fresh DATA_DIR named after `prefix`. */
const freshDatabaseAndDir = (prefix: string) =>
  Effect.gen(function* () {
    const { url } = yield* freshDatabase
    return { url, dataDir: yield* tempDir(prefix) }
  })

const assertEnvelope = (json: unknown) => assert.deepStrictEqual(Object.keys(json as object), ENVELOPE_KEYS)

describe("server lifecycle", () => {
  it.live(
    "PORT=0 picks a free port and logs it (CONTRACT §1)",
    () =>
      Effect.gen(function* () {
        // CONTRACT §1: PORT=0 lets the kernel pick a free port, and the log names it.
        const { url, dataDir } = yield* freshDatabaseAndDir("server-port0-")
        const { server, port } = yield* startServer({ PORT: "0", DATABASE_URL: url, DATA_DIR: dataDir })
        assert.isAbove(port, 0)
        assert.strictEqual((yield* get(port, "/healthz")).status, 200)
        yield* server.kill("SIGTERM")
        yield* server.exit(20_000)
      }),
    60_000
  )

  it.live(
    "serves /readyz; on SIGTERM it stops accepting, lets the in-flight request finish, exits and frees the port",
    () =>
      Effect.gen(function* () {
        const { server, port, proxy } = yield* serverBehindProxy("server-graceful-", SECRETS)

        const ready = yield* get(port, "/readyz")
        assert.strictEqual(ready.status, 200, ready.text)
        assertEnvelope(ready.json)
        assert.deepStrictEqual(ready.json.data, { database: "ok" })

        // The database now answers after 1.5 s, so this wallet read is in flight for that long. Not
        // /readyz: its own 2 s bound left 0.5 s of margin, which a loaded machine (the whole suite in
        // parallel) could eat, and the probe then answered 503 for a reason this test is not about.
        const authorization = `Bearer ${yield* tokenFor("graceful-shutdown")}`
        proxy.setDelay(1_500)
        const started = Date.now()
        const inFlight = yield* Effect.forkChild(send(port, "/v1/wallet", { headers: { authorization } }))
        yield* Effect.sleep("300 millis")
        yield* server.kill("SIGTERM")
        // New connections are refused while the in-flight request is still being served.
        let refused = ""
        while (refused !== "ECONNREFUSED" && Date.now() - started < 1_200) {
          yield* Effect.sleep("50 millis")
          refused = yield* tryConnect(port)
        }
        assert.strictEqual(refused, "ECONNREFUSED", "no new connection once shutting down")
        assert.isUndefined(inFlight.pollUnsafe(), "the in-flight request was still running when accepting stopped")

        const answer = yield* Fiber.join(inFlight)
        assert.isAtLeast(Date.now() - started, 1_400, "the request really waited on the slow database")
        assert.strictEqual(answer.status, 200, answer.text)
        assert.deepStrictEqual(answer.json.data, { coinBalance: 0, balances: [] })

        const exit = yield* server.exit(25_000)
        assert.deepStrictEqual(exit, { code: SIGTERM_EXIT_CODE, signal: null }, server.stderr())
        assert.strictEqual(yield* tryConnect(port), "ECONNREFUSED")
        assert.notMatch(server.stdout(), /ERROR/, "a clean shutdown logs no error")
      }),
    60_000
  )

  it.live(
    "on SIGTERM a kept-alive connection with a request in flight is answered, then closed; the stop does not wait out its 20 s",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          // A load balancer's connection: kept alive, and busy when the instance is told to stop.
          // Node's `close()` leaves such a connection open for its next request, and with the 65 s
          // keep-alive the stop would wait the whole 20 s for it (NodeServer.endKeptAliveOnClose).
          const { server, port, proxy } = yield* serverBehindProxy("server-keepalive-stop-", SECRETS)
          const connection = yield* openConnection(port)
          const authorization = `Bearer ${yield* tokenFor("keepalive-stop")}`
          const wallet = `GET /v1/wallet HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}`

          const before = yield* exchange(connection, wallet)
          assert.strictEqual(before.status, 200)
          assert.strictEqual(before.headers.connection, "keep-alive")

          proxy.setDelay(1_500)
          const inFlight = yield* Effect.forkChild(exchange(connection, wallet, 15_000))
          yield* Effect.sleep("300 millis")
          const stopped = Date.now()
          yield* server.kill("SIGTERM")

          // Its headers were decided when it arrived, before the stop (kept alive); the connection is
          // closed as soon as the answer is out, before a client could send another request on it.
          const answer = yield* Fiber.join(inFlight)
          assert.strictEqual(answer.status, 200, answer.body)
          assert.isTrue(yield* closedWithin(connection, 1_000), "the server closed the connection after its answer")

          const exit = yield* server.exit(25_000)
          assert.deepStrictEqual(exit, { code: SIGTERM_EXIT_CODE, signal: null }, server.stderr())
          // The graceful timeout is 20 s; without the close the stop took all of it.
          assert.isBelow(Date.now() - stopped, 10_000, "the stop waited for the kept-alive connection")
        })
      ),
    60_000
  )

  it.live(
    "/readyz answers 503 while the database refuses connections, and 200 again once it is back",
    () =>
      Effect.gen(function* () {
        const { url, name, admin } = yield* freshDatabase
        const dataDir = yield* tempDir("server-readyz-")
        const { port } = yield* startServer({ PORT: String(yield* freePort), DATABASE_URL: url, DATA_DIR: dataDir })
        assert.strictEqual((yield* get(port, "/readyz")).status, 200)

        yield* Effect.addFinalizer(() =>
          admin`ALTER DATABASE ${admin(name)} ALLOW_CONNECTIONS true`.pipe(Effect.ignore)
        )
        yield* admin`ALTER DATABASE ${admin(name)} ALLOW_CONNECTIONS false`
        yield* admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name} AND pid <> pg_backend_pid()`

        const down = yield* pollUntil(port, "/readyz", (answer) => answer.status !== 200, 10_000)
        assert.strictEqual(down.status, 503, down.text)
        assertEnvelope(down.json)
        assert.strictEqual(down.json.status, 503)
        assert.strictEqual(down.json.success, false)
        assert.isNull(down.json.data)
        assert.match(down.json.timestamp, /^\d{13}$/)
        // Liveness does not depend on the database.
        assert.strictEqual((yield* get(port, "/healthz")).status, 200)

        yield* admin`ALTER DATABASE ${admin(name)} ALLOW_CONNECTIONS true`
        const up = yield* pollUntil(port, "/readyz", (answer) => answer.status === 200, 10_000)
        assert.deepStrictEqual(up.json.data, { database: "ok" })
      }),
    60_000
  )

  it.live(
    "/readyz answers 503 within its bound while the database hangs, a request gets its 503 at the deadline, and it recovers",
    () =>
      Effect.gen(function* () {
        const { port, proxy } = yield* serverBehindProxy("server-hang-", SECRETS)
        // Several idle pool connections, so the requests below wait on a query, not on opening a
        // connection (which through the hung proxy fails after the 5 s connect timeout, as a 503).
        const warm = yield* Effect.all(
          Array.from({ length: 6 }, () => get(port, "/readyz")),
          { concurrency: 6 }
        )
        for (const answer of warm) assert.strictEqual(answer.status, 200)

        // A database that hangs far longer than any probe timeout: the answer must not wait for it.
        proxy.setDelay(30_000)
        // An ordinary request (a signed webhook, which writes) is cut by the 15 s request deadline
        // with a 503 in the route's envelope, rather than waiting for the database.
        const body = JSON.stringify({ event: "ping", type: "ping", data: { reference: "HUNG-1" } })
        const webhook = yield* Effect.forkChild(
          Effect.timed(
            send(port, WEBHOOK_PATH, {
              method: "POST",
              headers: { "content-type": "application/json", "x-provider-signature": sign(body) },
              body
            })
          )
        )
        // The webhook takes its connection first; the probe then gets another.
        yield* Effect.sleep("200 millis")
        const started = Date.now()
        const hung = yield* get(port, "/readyz")
        const elapsed = Date.now() - started
        assert.strictEqual(hung.status, 503, hung.text)
        assert.isNull(hung.json.data)
        // The handler's own timeout is 2 s, but interrupting the query waits for @effect/sql-pg to
        // cancel and drain it (up to 5 s more), so the answer takes about 7 s (see the report).
        assert.isBelow(elapsed, 10_000, "the probe is bounded, it does not wait for the database")

        const [took, cut] = yield* Fiber.join(webhook)
        assert.strictEqual(cut.status, 503, cut.text)
        assert.strictEqual(cut.json.status, 503)
        assert.isNull(cut.json.data)
        assert.isAtLeast(Duration.toMillis(took), 14_000, "cut by the deadline, not by the database")
        assert.isBelow(Duration.toMillis(took), 25_000, "the deadline bounds the request")

        proxy.setDelay(0)
        yield* pollUntil(port, "/readyz", (answer) => answer.status === 200, 20_000)
      }),
    90_000
  )

  itInTempDir(
    "without DATABASE_URL it runs on the embedded database in DATA_DIR, which keeps its data across restarts",
    "server-embedded-",
    (dataDir) =>
      Effect.gen(function* () {
        const env = { DATA_DIR: dataDir }

        const first = yield* startServer({ ...env, PORT: String(yield* freePort) }, 60_000)
        assert.include(first.server.stdout(), "Embedded PostgreSQL (PGlite)")
        assert.match(first.server.stdout(), /Applied migrations/)
        const ready = yield* get(first.port, "/readyz")
        assert.strictEqual(ready.status, 200, ready.text)
        assert.deepStrictEqual(ready.json.data, { database: "ok" })
        const secrets = readFileSync(join(dataDir, "dev-secrets.json"), "utf8")
        yield* first.server.kill("SIGTERM")
        assert.strictEqual((yield* first.server.exit(20_000)).code, SIGTERM_EXIT_CODE)

        const second = yield* startServer({ ...env, PORT: String(yield* freePort) }, 60_000)
        assert.strictEqual((yield* get(second.port, "/readyz")).status, 200)
        assert.include(second.server.stdout(), "Embedded PostgreSQL (PGlite)")
        assert.notMatch(second.server.stdout(), /Applied migrations/, "the migrated schema was kept")
        assert.notMatch(second.server.stdout(), /Generated development secrets/)
        assert.strictEqual(readFileSync(join(dataDir, "dev-secrets.json"), "utf8"), secrets)
        yield* second.server.kill("SIGTERM")
        assert.strictEqual((yield* second.server.exit(20_000)).code, SIGTERM_EXIT_CODE)
      }),
    120_000
  )

  it.live(
    "in production every log line on stdout is JSON",
    () =>
      Effect.gen(function* () {
        const { url, dataDir } = yield* freshDatabaseAndDir("server-production-")
        const { server, port } = yield* startServer({
          NODE_ENV: "production",
          PORT: String(yield* freePort),
          DATABASE_URL: url,
          DATA_DIR: dataDir,
          ...SECRETS
        })
        assert.strictEqual((yield* get(port, "/healthz")).status, 200)
        assert.strictEqual((yield* get(port, "/no/such/route")).status, 404)
        yield* server.waitForStdout(/no\/such\/route/, 5_000)
        yield* server.kill("SIGTERM")
        yield* server.exit(20_000)

        const lines = server
          .stdout()
          .split("\n")
          .filter((line) => line.trim() !== "")
        assert.isAtLeast(lines.length, 3)
        for (const line of lines) assert.isTrue(isJsonObjectLine(line), `not a JSON line: ${line}`)
        assert.isTrue(lines.some((line) => LISTENING.test(line)))
        assert.isTrue(lines.some((line) => line.includes("/no/such/route")))
        assert.notInclude(server.stdout(), SECRETS.AUTH_JWT_SECRET)
        assert.deepStrictEqual(
          server.stdout().match(/dev-secrets\.json/g),
          null,
          "no development secrets in production"
        )
      }),
    60_000
  )

  itInTempDir(
    "in production a missing secret stops start-up, naming it",
    "server-production-missing-",
    (dataDir) =>
      Effect.gen(function* () {
        const { CARD_FINGERPRINT_KEY: _, ...others } = SECRETS
        const server = yield* spawnNode(SERVER, [], {
          NODE_ENV: "production",
          PORT: String(yield* freePort),
          DATABASE_URL: "postgres://postgres@127.0.0.1:1/none",
          DATA_DIR: dataDir,
          ...others
        })
        const exit = yield* server.exit(20_000)
        assert.strictEqual(exit.code, 1)
        const output = server.stdout() + server.stderr()
        assert.include(output, "CARD_FINGERPRINT_KEY")
        assert.notInclude(output, "INTERNAL_API_KEY", "only the missing variable is named")
      }),
    60_000
  )

  it.live(
    "in production a failed start-up is logged as JSON too",
    () =>
      Effect.gen(function* () {
        // The reason a production start failed is the line an operator needs most: JSON like the rest.
        const dataDir = yield* tempDir("server-production-json-failure-")
        const server = yield* spawnNode(SERVER, [], {
          NODE_ENV: "production",
          PORT: String(yield* freePort),
          DATABASE_URL: "postgres://postgres@127.0.0.1:1/none",
          DATA_DIR: dataDir
        })
        assert.strictEqual((yield* server.exit(20_000)).code, 1)
        const lines = server
          .stdout()
          .split("\n")
          .filter((line) => line.trim() !== "")
        assert.isAtLeast(lines.length, 1, "the failure is logged")
        for (const line of lines) assert.isTrue(isJsonObjectLine(line), `not a JSON line: ${line}`)
        assert.include(server.stdout(), "CARD_FINGERPRINT_KEY")
      }),
    60_000
  )
})
