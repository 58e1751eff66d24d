import { createServer as createNodeServer, type Server, STATUS_CODES } from "node:http"

/**
 * A node:http server whose own parser errors (a header block over 16 KiB, an unknown method, a
 * malformed request line or header) are answered with the CONTRACT §2 envelope too, instead of
 * Node's bare 400. Nothing reached our code, so the timestamp comes from the system clock.
 */
export const createServer = (): Server => {
  const server = createNodeServer()
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy()
      return
    }
    const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : 400
    const message = status === 431 ? "Request headers too large" : "Malformed HTTP request"
    const body = JSON.stringify({ timestamp: String(Date.now()), status, success: false, message, data: null })
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
    )
  })
  return server
}
