/**
 * An idle kept-alive connection, on the real server and a raw socket (apps/http/src/NodeServer.ts,
 * `KEEP_ALIVE_TIMEOUT`).
 *
 * Node's default would close it after 5 s (6 s with Node's grace), and a client pool that does not
 * read the `Keep-Alive` hint (Node's own `http.Agent` among them) then sends its next request into
 * a closing socket and gets ECONNRESET. The connection here idles 11 s, past that and past the 10 s
 * `headersTimeout`, which must not apply to a connection with no request under way, and then
 * carries a second request.
 */
import { connect, type Socket } from "node:net"
import { assert, describe, layer } from "@effect/vitest"
import { KEEP_ALIVE_TIMEOUT } from "@payments-gaming/http/NodeServer"
import { Effect } from "effect"
import { parseResponse } from "../../fuzz/RawSocket.ts"
import { baseUrl, TestServer } from "../../support/TestServer.ts"

const IDLE_MILLIS = 11_000
const HEALTH_CHECK = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

/** One connection, and what the server sent and whether it closed, as it happens. */
const openConnection = (port: number) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly socket: Socket; readonly received: Array<Buffer>; readonly closed: { at?: number } }>(
      (resume) => {
        const received: Array<Buffer> = []
        const closed: { at?: number } = {}
        const socket = connect(port, "127.0.0.1", () => resume(Effect.succeed({ socket, received, closed })))
        socket.on("data", (chunk) => received.push(chunk))
        socket.on("close", () => {
          closed.at = Date.now()
        })
        socket.on("error", () => {})
      }
    ),
    ({ socket }) => Effect.sync(() => socket.destroy())
  )

/** Writes one request and waits until a whole answer (by its Content-Length) or the close has come. */
const exchange = (connection: Effect.Success<ReturnType<typeof openConnection>>) =>
  Effect.gen(function* () {
    const before = Buffer.concat(connection.received).length
    connection.socket.write(HEALTH_CHECK)
    for (let waited = 0; waited < 5_000; waited += 20) {
      const answer = Buffer.concat(connection.received).subarray(before)
      const { headers, body } = parseResponse(answer)
      const length = Number(headers["content-length"])
      if (Number.isFinite(length) && Buffer.byteLength(body) >= length) return parseResponse(answer)
      if (connection.closed.at !== undefined) break
      yield* Effect.sleep(20)
    }
    return parseResponse(Buffer.concat(connection.received).subarray(before))
  })

describe("an idle kept-alive connection", () => {
  layer(TestServer(), { timeout: "60 seconds", excludeTestServices: true })("on the service as configured", (it) => {
    it.effect(`stays open ${IDLE_MILLIS / 1000} s and carries the next request`, () =>
      Effect.scoped(
        Effect.gen(function* () {
          const port = Number(new URL(yield* baseUrl).port)
          const connection = yield* openConnection(port)

          const first = yield* exchange(connection)
          assert.strictEqual(first.status, 200)
          // The hint a client that reads it gets: the same number of seconds.
          assert.strictEqual(first.headers["keep-alive"], `timeout=${KEEP_ALIVE_TIMEOUT / 1000}`)

          yield* Effect.sleep(IDLE_MILLIS)
          assert.isUndefined(connection.closed.at, "the server closed the idle connection")

          const second = yield* exchange(connection)
          assert.strictEqual(second.status, 200)
          assert.isUndefined(connection.closed.at)
        })
      )
    )
  })
})
