/**
 * The reference points of `npm run bench`, as a child process of their own.
 *
 * REFERENCE_MODE=static: every request is read to its end and answered with one fixed JSON body;
 * no database, no parsing. The most a Node HTTP server does on this machine.
 *
 * REFERENCE_MODE=plain: the four benchmarked endpoints on bare `node:http`, doing the work the
 * service must do (verify the bearer with jose, the webhook HMAC, the card fingerprint HMAC, the
 * spin draw HMAC) and the SAME SQL, statement for statement and transaction for transaction, through
 * the SAME client (the service's PostgresClient.layer: pool of DATABASE_MAX_CONNECTIONS, pipelined
 * per DATABASE_STATEMENTS_PER_CONNECTION, with the same bounds); see
 * lib/PlainReference.ts. What it leaves out is everything between the socket and the SQL: the
 * router, schemas, middleware, envelopes, the domain services, logging and metrics. Validation is
 * the minimum the bench's requests need. It expects the service's migrations applied (the bench
 * starts the service first).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"

const required = (name: string) => {
  const value = process.env[name]
  if (value === undefined || value === "") throw new Error(`${name} is required`)
  return value
}

const PORT = Number(required("PORT"))
const MAX_BODY = 256 * 1024

const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body)
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers
  })
  response.end(text)
}

const readBody = (request: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY) {
        reject(new Error("body too large"))
        request.destroy()
        return
      }
      chunks.push(chunk)
    })
    request.on("end", () => resolve(Buffer.concat(chunks)))
    request.on("error", reject)
  })

if (process.env.REFERENCE_MODE === "static") {
  const body = Buffer.from(
    JSON.stringify({ timestamp: "0000000000000", status: 200, success: true, message: "static", data: "OK" })
  )
  createServer((request, response) => {
    request.resume()
    request.on("end", () => {
      response.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) })
      response.end(body)
    })
  }).listen(PORT, "127.0.0.1")
  process.once("SIGTERM", () => process.exit(0))
} else {
  // Loaded only here, so the static server carries neither effect nor the driver in its memory.
  const { startPlain } = await import("./lib/PlainReference.ts")
  await startPlain(PORT, { send, readBody })
}
