import { subscribe, unsubscribe } from "node:diagnostics_channel"
import {
  createServer as createNodeServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES
} from "node:http"
import type { Duplex } from "node:stream"
import type { EnvelopeStyle } from "@payments-gaming/api/RoutePolicy"
import { makeLocalFormatter } from "./ResponseTime.ts"
import { envelopeOfUnrouted } from "./ServiceRoutes.ts"

export interface ServerOptions {
  /** Local date-times of the trivia routes' envelope (`APP_TIMEZONE`); UTC when not given. */
  readonly formatLocal?: ((epochMillis: number) => string) | undefined
}

// "METHOD /path HTTP/1.1" at the start of the bytes the parser refused.
const REQUEST_LINE = /^[A-Z]+ (\S+) HTTP\/\d/

/**
 * The URL of the request Node's parser gave up on, when it can be known: the one being read (a body
 * that timed out), or the request line at the start of the refused bytes (a header block too large
 * or malformed). A request line that arrived in an earlier packet, or never completed, stays unknown.
 */
const urlOf = (error: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Duplex): string | undefined => {
  const incoming = (socket as { parser?: { incoming?: { url?: unknown } | null } }).parser?.incoming
  if (typeof incoming?.url === "string") return incoming.url
  if (!(error.rawPacket instanceof Buffer)) return undefined
  return REQUEST_LINE.exec(error.rawPacket.subarray(0, 8_192).toString("latin1"))?.[1]
}

// Nothing reached our code when Node's parser fails, or when no app serves yet, so the timestamp
// comes from the system clock.
const envelopeText = (
  status: number,
  message: string,
  style: EnvelopeStyle,
  formatLocal: (millis: number) => string
) => {
  const now = Date.now()
  const envelope =
    style === "reduced"
      ? { status, message, data: null }
      : {
          timestamp: style === "local" ? formatLocal(now) : String(now),
          status,
          success: false,
          message,
          data: null
        }
  return JSON.stringify(envelope)
}

const answer = (status: number, message: string, style: EnvelopeStyle, formatLocal: (millis: number) => string) => {
  const body = envelopeText(status, message, style, formatLocal)
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
    // As the response middleware's withSafetyHeaders gives every other answer.
    "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}

/**
 * How long an idle kept-alive connection stays open, in milliseconds (Node closes it a second after
 * this; the answers say `Keep-Alive: timeout=65`). Node's default is 5 s, and a client pool that
 * keeps idle connections longer (a Node `http.Agent` made with `keepAlive` and no `timeout`, as the
 * benchmark's load generator's is, which ignores the hint) writes its next request as the server
 * closes the connection and gets ECONNRESET: tried on Node 24 at 6.000 s idle; issue 35 saw two
 * such errors in an open-loop benchmark round. A load balancer keeps such a pool: AWS's ALB closes
 * idle connections after 60 s by default, and a server that closes first makes it answer 502. 65 s
 * is above that; Fastify's default is 72 s. At shutdown `endKeptAliveOnClose` ends them.
 */
export const KEEP_ALIVE_TIMEOUT = 65_000

const CLIENT_ERRORS: Record<string, readonly [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, "Request headers too large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request timeout"]
}

/** `listener` on `event` whenever nothing else listens to it: detached while something does. */
const standIn = (
  server: Server,
  event: "request" | "checkContinue",
  listener: (request: IncomingMessage, response: ServerResponse) => void
) => {
  server.on(event, listener)
  // `newListener` fires before the new listener is added, `removeListener` after the removal.
  server.on("newListener", (name: string | symbol, added: unknown) => {
    if (name === event && added !== listener) server.off(event, listener)
  })
  server.on("removeListener", (name: string | symbol, removed: unknown) => {
    if (name === event && removed !== listener && server.listenerCount(event) === 0) server.on(event, listener)
  })
}

/**
 * A node:http server whose own parser errors (a header block over 16 KiB, a timed-out header or
 * body, an unknown method, a malformed request line or header) are answered with the CONTRACT §2
 * envelope too, in its group's style when the path is known, instead of Node's bare 400/408/431.
 */
export const createServer = (options: ServerOptions = {}): Server => {
  const formatLocal = options.formatLocal ?? makeLocalFormatter("UTC")
  const server = createNodeServer({
    // A request without Host is served like any other (we route on the path alone) rather than
    // refused with Node's bare 400.
    requireHostHeader: false,
    // A client must deliver its whole request (headers and body) within 10 s, checked every second:
    // a trickled body is cut with a 408 (clientError below) before the service's own 15 s deadline,
    // which would otherwise interrupt the body read and drop the connection without an answer.
    requestTimeout: 10_000,
    headersTimeout: 10_000,
    connectionsCheckingInterval: 1_000,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT
  })
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy()
      return
    }
    const [status, message] = CLIENT_ERRORS[error.code ?? ""] ?? [400, "Malformed HTTP request"]
    const url = urlOf(error, socket)
    // The envelope of the group whose space the request names (no route matched it: it reached none).
    const style = url === undefined ? "epoch" : envelopeOfUnrouted(url)
    socket.end(answer(status, message, style, formatLocal))
  })
  // The app attaches its `request` and `checkContinue` listeners only after the server listens
  // (NodeHttpServer.serve), and detaches them at shutdown. A request Node parses while no app
  // listens would reach no listener and never be answered: the client would hang until its own
  // timeout (a readiness probe, the first requests after a deploy). Until the app listens, and once
  // it has stopped, the answer is a 503 that says to come back; a request that expects
  // 100-continue gets it without the 100, so its body is never sent. No cost per request while
  // serving: the stand-ins are then detached.
  const notServing = (request: IncomingMessage, response: ServerResponse) => {
    const body = envelopeText(
      503,
      "Service is starting up or shutting down",
      envelopeOfUnrouted(request.url ?? "/"),
      formatLocal
    )
    response.shouldKeepAlive = false
    response.writeHead(503, {
      "Content-Type": "application/json",
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "no-store",
      "Retry-After": "1",
      "Content-Length": Buffer.byteLength(body)
    })
    response.end(body)
    // The body is not read: drop it rather than let it hold the socket.
    request.resume()
  }
  standIn(server, "request", notServing)
  // Node's own answer to 100-continue with no listener (the 100, then `request`) while an app
  // serves; the 503 without the 100 while none does.
  standIn(server, "checkContinue", (request, response) => {
    if (server.listeners("request").includes(notServing)) return notServing(request, response)
    response.writeContinue()
    server.emit("request", request, response)
  })
  // An Expect other than 100-continue: Node's own answer would be a bare 417 outside the envelope.
  // The expectation is ignored instead and the request served as usual, in its route's envelope.
  server.on("checkExpectation", (request, response) => {
    server.emit("request", request, response)
  })
  endKeptAliveOnClose(server)
  return server
}

interface ServerMessage {
  readonly response: ServerResponse
  readonly server: Server
}

/**
 * Once `server.close()` is called, a request that arrives is answered `Connection: close`, and every
 * connection is closed as soon as it is idle (an answer already under way goes out kept alive). Node's `close()` closes only the connections idle at that moment and
 * keeps serving kept-alive requests on the others; with `KEEP_ALIVE_TIMEOUT` at 65 s, a connection
 * busy at SIGTERM (a load balancer's always is) would outlive the 20 s the shutdown waits for
 * (NodeHttpServer's graceful timeout), and every such stop would take the whole 20 s. Nothing runs
 * per request until then: the two diagnostics channels are subscribed at `close()`.
 */
const endKeptAliveOnClose = (server: Server) => {
  const close = server.close.bind(server)
  let closing = false
  const onRequest = (message: unknown) => {
    const { response, server: from } = message as ServerMessage
    if (from === server) response.shouldKeepAlive = false
  }
  // An answer that was under way at `close()` went out kept alive; its connection is idle once
  // Node has detached it from the response, after this channel's message.
  const onFinish = (message: unknown) => {
    if ((message as ServerMessage).server === server) setImmediate(() => server.closeIdleConnections())
  }
  server.close = (callback?: (error?: Error) => void) => {
    if (!closing) {
      closing = true
      subscribe("http.server.request.start", onRequest)
      subscribe("http.server.response.finish", onFinish)
      server.once("close", () => {
        unsubscribe("http.server.request.start", onRequest)
        unsubscribe("http.server.response.finish", onFinish)
      })
    }
    return close(callback)
  }
}
