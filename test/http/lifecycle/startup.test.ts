import { Agent, type IncomingMessage, request, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import { TEST_SECRETS } from "@payments-gaming/adapters/test/support/TestSecrets"
import { createServer } from "@payments-gaming/http/NodeServer"
import { Effect } from "effect"
import { freePort } from "../../support/Http.ts"
import { SERVER, spawnNode, tempDir } from "../../support/NodeProcess.ts"
import { tcpProxy } from "../../support/TcpProxy.ts"

/** The error envelope's keys, in order (CONTRACT §2). */
const ENVELOPE_KEYS = ["timestamp", "status", "success", "message", "data"]

/** What became of one request sent while the server started. */
type Outcome =
  | { readonly _tag: "Refused" }
  | { readonly _tag: "Answered"; readonly status: number; readonly retryAfter?: string; readonly body: string }
  | { readonly _tag: "Hung"; readonly sentAtMs: number }
  | { readonly _tag: "Failed"; readonly code: string; readonly sentAtMs: number }

/** A request unanswered this long after it connected was parked for good (the server answers /healthz at once). */
const HANG_MS = 5_000

/**
 * GET /healthz on a fresh connection: refused (nothing listened), answered, hung (connected, no
 * answer within HANG_MS) or failed otherwise (connected, then reset or closed without an answer).
 */
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
    outgoing.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      resolve(
        error.code === "ECONNREFUSED" ? { _tag: "Refused" } : { _tag: "Failed", code: String(error.code), sentAtMs }
      )
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

        const unanswered = results.filter((result) => result._tag === "Hung" || result._tag === "Failed")
        assert.deepStrictEqual(unanswered, [], "every accepted request got an answer")
        const answers = results.filter((result) => result._tag === "Answered")
        assert.isTrue(
          answers.some((answer) => answer.status === 200),
          `the server came up; it said:\n${server.stderr()}`
        )
        for (const answer of answers.filter((answer) => answer.status !== 200)) {
          assert.strictEqual(answer.status, 503, answer.body)
          assert.strictEqual(answer.retryAfter, "1")
          assert.deepStrictEqual(Object.keys(JSON.parse(answer.body)), ENVELOPE_KEYS)
        }
        yield* server.kill("SIGTERM")
        yield* server.exit(20_000)
      }),
    90_000
  )

  it.live(
    "without the app's listeners the node server answers 503 in the envelope, to 100-continue without the 100; with them, only the app answers",
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
            const agent = new Agent({ keepAlive: true, maxSockets: 1 })
            // Before the app attaches (NodeHttpServer listens first, then serves).
            const early = yield* exchange(port, agent)
            assert.strictEqual(early.status, 503, early.body)
            assert.deepStrictEqual(Object.keys(JSON.parse(early.body)), ENVELOPE_KEYS)
            assert.strictEqual(early.connection, "close")
            const expecting = yield* exchange(port, agent, { expectContinue: true })
            assert.deepStrictEqual([expecting.status, expecting.continued], [503, false], "no 100 before the 503")

            // The app attaches as NodeHttpServer.serve does: the stand-ins step aside.
            const app = (_request: IncomingMessage, response: ServerResponse) => response.end("app")
            const appContinue = (request: IncomingMessage, response: ServerResponse) => {
              response.writeContinue()
              app(request, response)
            }
            server.on("request", app)
            server.on("checkContinue", appContinue)
            assert.deepStrictEqual(
              [server.listenerCount("request"), server.listenerCount("checkContinue")],
              [1, 1],
              "the stand-ins are detached while the app serves"
            )
            const served = yield* exchange(port, agent)
            assert.deepStrictEqual([served.status, served.body], [200, "app"])
            const continued = yield* exchange(port, agent, { expectContinue: true })
            assert.deepStrictEqual([continued.status, continued.continued], [200, true])

            // The app detaches (shutdown): a request on a connection still open is answered 503
            // and the connection closed.
            server.off("request", app)
            server.off("checkContinue", appContinue)
            // The agent takes the socket back once the last answer has been read to its end.
            yield* Effect.sleep("50 millis")
            const late = yield* exchange(port, agent)
            assert.isTrue(late.reusedSocket, "the request rode the kept-alive connection")
            assert.deepStrictEqual([late.status, late.connection], [503, "close"])
            agent.destroy()
          }),
        (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
      )
  )
})

/** One POST through `agent`, bounded (without an answer the request would be parked for good). */
const exchange = (port: number, agent: Agent, options: { readonly expectContinue?: boolean } = {}) =>
  Effect.callback<{
    status: number
    body: string
    connection: string | undefined
    continued: boolean
    reusedSocket: boolean
  }>((resume) => {
    let continued = false
    const outgoing = request(
      {
        host: "127.0.0.1",
        port,
        path: "/v1/wallet",
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": "2",
          ...(options.expectContinue === true ? { expect: "100-continue" } : {})
        }
      },
      (response) => {
        let body = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => {
          body += chunk
        })
        response.on("end", () =>
          resume(
            Effect.succeed({
              status: response.statusCode ?? 0,
              body,
              connection: response.headers.connection,
              continued,
              reusedSocket: outgoing.reusedSocket
            })
          )
        )
      }
    )
    outgoing.on("error", (error) => resume(Effect.die(error)))
    if (options.expectContinue === true) {
      outgoing.on("continue", () => {
        continued = true
        outgoing.end("{}")
      })
    } else outgoing.end("{}")
    return Effect.sync(() => outgoing.destroy())
  }).pipe(Effect.timeout("5 seconds"))
