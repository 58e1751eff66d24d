/**
 * An idle kept-alive connection, on the real server and a raw socket (apps/http/src/NodeServer.ts,
 * `KEEP_ALIVE_TIMEOUT`).
 *
 * Node's default would close it after 5 s (6 s with Node's grace). A client pool that keeps idle
 * connections longer than that (a Node `http.Agent` made with `keepAlive` and no `timeout`, or a
 * load balancer) then sends its next request into a closing socket and gets ECONNRESET, or answers
 * 502. The connection here idles 12 s, past that and past the 10 s `headersTimeout`, which must not
 * apply to a connection with no request under way, and then carries a second request.
 */
import { assert, describe, layer } from "@effect/vitest"
import { KEEP_ALIVE_TIMEOUT } from "@payments-gaming/http/NodeServer"
import { Effect } from "effect"
import { exchange, openConnection } from "../../support/KeptAliveConnection.ts"
import { baseUrl, TestServer } from "../../support/TestServer.ts"

const IDLE_MILLIS = 12_000
const HEALTH_CHECK = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1"
/** AWS's Application Load Balancer closes idle connections after 60 s by default. */
const LOAD_BALANCER_IDLE_MILLIS = 60_000

describe("an idle kept-alive connection", () => {
  layer(TestServer(), { timeout: "60 seconds", excludeTestServices: true })("on the service as configured", (it) => {
    it.effect(`stays open ${IDLE_MILLIS / 1000} s and carries the next request`, () =>
      Effect.scoped(
        Effect.gen(function* () {
          assert.isAbove(KEEP_ALIVE_TIMEOUT, LOAD_BALANCER_IDLE_MILLIS, "a balancer in front must close first")
          const port = Number(new URL(yield* baseUrl).port)
          const connection = yield* openConnection(port)

          const first = yield* exchange(connection, HEALTH_CHECK)
          assert.strictEqual(first.status, 200)
          // The hint a client that reads it gets: the same number of seconds.
          assert.strictEqual(first.headers["keep-alive"], `timeout=${KEEP_ALIVE_TIMEOUT / 1000}`)

          const idleFrom = Date.now()
          yield* Effect.sleep(IDLE_MILLIS)
          const closedAfter = connection.closed.at === undefined ? undefined : connection.closed.at - idleFrom
          assert.isUndefined(closedAfter, `the server closed the idle connection after ${closedAfter} ms`)

          const second = yield* exchange(connection, HEALTH_CHECK)
          assert.strictEqual(second.status, 200)
          assert.isUndefined(connection.closed.at)
        })
      )
    )
  })
})
