import { connect } from "node:net"

/** What came back on a raw connection before the server closed it (or the wait ran out). */
export interface RawExchange {
  readonly bytes: Buffer
  readonly millis: number
  /** Milliseconds until the first byte of the answer; undefined when none came. */
  readonly firstByteMillis: number | undefined
  readonly closedByServer: boolean
}

/**
 * Opens a connection, writes `head` at once and then each byte of `trickled` every `intervalMs`,
 * and collects the answer until the server closes the connection or `waitMillis` pass. Writing
 * stops as soon as the server answers or closes.
 */
export const trickle = (
  port: number,
  head: string | Uint8Array,
  trickled: string | Uint8Array,
  intervalMs: number,
  waitMillis: number
): Promise<RawExchange> =>
  new Promise((resolve) => {
    const started = Date.now()
    const chunks: Array<Buffer> = []
    const slow = typeof trickled === "string" ? Buffer.from(trickled, "latin1") : Buffer.from(trickled)
    let firstByteMillis: number | undefined
    let timer: NodeJS.Timeout | undefined
    let settled = false
    const socket = connect(port, "127.0.0.1")
    const finish = (closedByServer: boolean) => {
      if (settled) return
      settled = true
      clearInterval(timer)
      clearTimeout(deadline)
      socket.destroy()
      resolve({ bytes: Buffer.concat(chunks), millis: Date.now() - started, firstByteMillis, closedByServer })
    }
    const deadline = setTimeout(() => finish(false), waitMillis)
    socket.on("connect", () => {
      socket.write(typeof head === "string" ? Buffer.from(head, "latin1") : head)
      let next = 0
      timer = setInterval(() => {
        if (next >= slow.length || firstByteMillis !== undefined || !socket.writable) return clearInterval(timer)
        socket.write(slow.subarray(next, next + 1))
        next += 1
      }, intervalMs)
    })
    socket.on("data", (chunk) => {
      firstByteMillis ??= Date.now() - started
      chunks.push(chunk)
    })
    socket.on("end", () => finish(true))
    socket.on("close", () => finish(true))
    socket.on("error", () => finish(true))
  })

/** The first final HTTP/1.1 response in `bytes` (past any 100 Continue): status, headers, body. */
export const parseResponse = (bytes: Buffer): { status: number; headers: Record<string, string>; body: string } => {
  const text = bytes.toString("latin1")
  const end = text.indexOf("\r\n\r\n")
  if (/^HTTP\/1\.[01] 1\d\d /.test(text) && end !== -1) return parseResponse(bytes.subarray(end + 4))
  const head = end === -1 ? text : text.slice(0, end)
  const [statusLine = "", ...lines] = head.split("\r\n")
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? Number.NaN)
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const rest = end === -1 ? Buffer.alloc(0) : bytes.subarray(end + 4)
  if (/chunked/i.test(headers["transfer-encoding"] ?? "")) return { status, headers, body: dechunk(rest) }
  const length = headers["content-length"] === undefined ? rest.length : Number(headers["content-length"])
  return { status, headers, body: rest.subarray(0, length).toString("utf8") }
}

/** The payload of a chunked body, up to its last chunk. */
const dechunk = (bytes: Buffer): string => {
  const parts: Array<Buffer> = []
  let at = 0
  while (at < bytes.length) {
    const lineEnd = bytes.indexOf("\r\n", at, "latin1")
    if (lineEnd === -1) break
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16)
    if (!Number.isFinite(size) || size === 0) break
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
  return Buffer.concat(parts).toString("utf8")
}
