import { createServer as createNodeServer, type Server, STATUS_CODES } from "node:http"

// Nothing reached our code when Node's parser fails, so the timestamp comes from the system clock.
const answer = (status: number, message: string) => {
  const body = JSON.stringify({ timestamp: String(Date.now()), status, success: false, message, data: null })
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
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
 * envelope too, instead of Node's bare 400/408/431.
 */
export const createServer = (): Server => {
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
    socket.end(answer(status, message))
  })
  // An Expect other than 100-continue: Node's own answer would be a bare 417 outside the envelope.
  // The expectation is ignored instead and the request served as usual, in its route's envelope.
  server.on("checkExpectation", (request, response) => {
    server.emit("request", request, response)
  })
  return server
}
