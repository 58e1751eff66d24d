import { createServer as createNodeServer, type Server, STATUS_CODES } from "node:http"
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

// Nothing reached our code when Node's parser fails, so the timestamp comes from the system clock.
const answer = (status: number, message: string, style: EnvelopeStyle, formatLocal: (millis: number) => string) => {
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
  const body = JSON.stringify(envelope)
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
    // As the response middleware's withSafetyHeaders gives every other answer.
    "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}

const CLIENT_ERRORS: Record<string, readonly [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, "Request headers too large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request timeout"]
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
    connectionsCheckingInterval: 1_000
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
  // An Expect other than 100-continue: Node's own answer would be a bare 417 outside the envelope.
  // The expectation is ignored instead and the request served as usual, in its route's envelope.
  server.on("checkExpectation", (request, response) => {
    server.emit("request", request, response)
  })
  return server
}
