import { connect, type Socket } from "node:net"
import { Effect } from "effect"
import { parseResponse } from "../fuzz/RawSocket.ts"

/** A raw connection to the server, kept open between requests, and what came back on it. */
export interface KeptAliveConnection {
  readonly socket: Socket
  readonly received: Array<Buffer>
  /** When the server closed it (`Date.now()`), while open undefined. */
  readonly closed: { at?: number }
}

/** Opens a connection to 127.0.0.1:`port` for the scope; fails if it cannot connect. */
export const openConnection = (port: number) =>
  Effect.acquireRelease(
    Effect.callback<KeptAliveConnection, Error>((resume) => {
      const received: Array<Buffer> = []
      const closed: { at?: number } = {}
      const socket = connect(port, "127.0.0.1", () => resume(Effect.succeed({ socket, received, closed })))
      socket.on("data", (chunk) => received.push(chunk))
      socket.on("close", () => {
        closed.at = Date.now()
      })
      // Before the connection: the test fails at once. After it: `closed` says what happened.
      socket.once("error", (error) => resume(Effect.fail(error)))
      socket.on("error", () => {})
    }),
    ({ socket }) => Effect.sync(() => socket.destroy())
  )

/**
 * Writes one HTTP/1.1 request (no `Connection` header: kept alive) and waits, up to `waitMillis`,
 * until its whole answer (by Content-Length) or the close has come; the answer as parsed (whether
 * the server then closed the connection is `connection.closed`).
 */
export const exchange = (connection: KeptAliveConnection, head: string, waitMillis = 5_000) =>
  Effect.gen(function* () {
    const before = Buffer.concat(connection.received).length
    const answer = () => Buffer.concat(connection.received).subarray(before)
    connection.socket.write(`${head}\r\n\r\n`)
    for (let waited = 0; waited < waitMillis; waited += 20) {
      const { headers, body } = parseResponse(answer())
      const length = Number(headers["content-length"])
      if (Number.isFinite(length) && Buffer.byteLength(body) >= length) break
      if (connection.closed.at !== undefined) break
      yield* Effect.sleep(20)
    }
    return parseResponse(answer())
  })

/** Resolves once the server has closed `connection`, or after `waitMillis`; whether it did. */
export const closedWithin = (connection: KeptAliveConnection, waitMillis: number) =>
  Effect.gen(function* () {
    for (let waited = 0; waited < waitMillis && connection.closed.at === undefined; waited += 20) {
      yield* Effect.sleep(20)
    }
    return connection.closed.at !== undefined
  })
