import { type IncomingMessage, request, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import { TEST_SECRETS } from "@payments-gaming/adapters/test/support/TestSecrets"
import { createServer } from "@payments-gaming/http/NodeServer"
import { Effect } from "effect"
import { freePort, get } from "../../support/Http.ts"
import { SERVER, spawnNode, tempDir } from "../../support/NodeProcess.ts"
import { tcpProxy } from "../../support/TcpProxy.ts"

/** What became of one request sent while the server started. */
type Outcome =
  | { readonly _tag: "Refused" }
  | { readonly _tag: "Answered"; readonly status: number; readonly retryAfter?: string; readonly body: string }
  | { readonly _tag: "Hung"; readonly sentAtMs: number }

/** A request unanswered this long after it connected was parked for good (the server answers /healthz at once). */
const HANG_MS = 5_000

/** GET /healthz on a fresh connection: refused, answered, or hung (connected, no answer within HANG_MS). */
const probe = (port: number, sentAtMs: number) =>
  new Promise<Outcome>((resolve) => {
    let timer: NodeJS.Timeout | undefined
    const outgoing = request({ host: "127.0.0.1", port, path: "/healthz", agent: false }, (response) => {
      let body = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => {
        body += chunk
      })
      response.on("end", () => {
        clearTimeout(timer)
        const retryAfter = response.headers["retry-after"]
        resolve({
          _tag: "Answered",
          status: response.statusCode ?? 0,
          body,
          ...(retryAfter === undefined ? {} : { retryAfter })
        })
      })
    })
    outgoing.on("socket", (socket) =>
      socket.on("connect", () => {
        timer = setTimeout(() => {
          outgoing.destroy()
          resolve({ _tag: "Hung", sentAtMs })
        }, HANG_MS)
      })
    )
    outgoing.on("error", () => {
      clearTimeout(timer)
      resolve({ _tag: "Refused" })
    })
    outgoing.end()
  })

describe("server start-up", () => {
  it.live(
    "a request that reaches the port while the server starts is refused, answered 503 with Retry-After, or served: never left unanswered",
    () =>
      Effect.gen(function* () {
        // The database answers every chunk 40 ms late, so building the app's ports (statements,
        // timers) takes many event-loop turns: a request parsed in one of them, before the routes
        // serve, was parked with no listener and never answered (the crash test's readiness flake).
        const database = new URL(yield* freshDatabaseUrl)
        const proxy = yield* tcpProxy({ host: database.hostname, port: Number(database.port || 5432) })
        proxy.setDelay(40)
        database.port = String(proxy.port)
        const port = yield* freePort
        const server = yield* spawnNode(SERVER, [], {
          ...TEST_SECRETS,
          LOG_LEVEL: "warn",
          HOST: "127.0.0.1",
          PORT: String(port),
          DATABASE_URL: database.toString(),
          DATA_DIR: yield* tempDir("server-startup-")
        })

        // A new connection every 3 ms from the spawn until the first 200, then every probe settles.
        const started = Date.now()
        const outcomes: Array<Promise<Outcome>> = []
        let served = false
        while (!served && Date.now() - started < 60_000) {
          const outcome = probe(port, Date.now() - started)
          outcomes.push(outcome)
          void outcome.then((result) => {
            if (result._tag === "Answered" && result.status === 200) served = true
          })
          yield* Effect.sleep("3 millis")
        }
        const results = yield* Effect.promise(() => Promise.all(outcomes))

        const hung = results.filter((result) => result._tag === "Hung")
        assert.deepStrictEqual(hung, [], "every accepted request got an answer")
        const answers = results.filter((result) => result._tag === "Answered")
        assert.isTrue(
          answers.some((answer) => answer.status === 200),
          `the server came up; it said:\n${server.stderr()}`
        )
        for (const answer of answers.filter((answer) => answer.status !== 200)) {
          assert.strictEqual(answer.status, 503, answer.body)
          assert.strictEqual(answer.retryAfter, "1")
          assert.deepStrictEqual(Object.keys(JSON.parse(answer.body)), [
            "timestamp",
            "status",
            "success",
            "message",
            "data"
          ])
        }
        yield* server.kill("SIGTERM")
        yield* server.exit(20_000)
      }),
    90_000
  )
  it.live(
    "without the app's request listener the node server answers 503 in the envelope; with it, only the app answers",
    () =>
      Effect.acquireUseRelease(
        Effect.promise(
          () =>
            new Promise<ReturnType<typeof createServer>>((resolve) => {
              const server = createServer()
              server.listen(0, "127.0.0.1", () => resolve(server))
            })
        ),
        (server) =>
          Effect.gen(function* () {
            const port = (server.address() as AddressInfo).port
            const expectNotServing = Effect.gen(function* () {
              // Bounded: without the stand-in the request is parked for good.
              const answer = yield* get(port, "/v1/wallet").pipe(Effect.timeout("5 seconds"))
              assert.strictEqual(answer.status, 503, answer.text)
              assert.deepStrictEqual(Object.keys(answer.json), ["timestamp", "status", "success", "message", "data"])
              assert.strictEqual(answer.json.status, 503)
            })
            // Before the app attaches (NodeHttpServer listens first, then serves).
            yield* expectNotServing
            const app = (_request: IncomingMessage, response: ServerResponse) => response.end("app")
            server.on("request", app)
            assert.strictEqual(server.listenerCount("request"), 1, "the stand-in is detached while the app serves")
            const served = yield* get(port, "/v1/wallet")
            assert.deepStrictEqual([served.status, served.text], [200, "app"])
            // After the app detaches (shutdown), requests on connections still open are answered again.
            server.off("request", app)
            yield* expectNotServing
          }),
        (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
      )
  )
})
