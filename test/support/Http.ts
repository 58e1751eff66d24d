import { request } from "node:http"
import { type AddressInfo, connect, createServer } from "node:net"
import { Effect } from "effect"

export interface Answer {
  readonly status: number
  readonly text: string
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON bodies
  readonly json: any
}

/**
 * One request on a fresh connection (no keep-alive pool), so a request never rides on a socket the
 * server is closing and a refused connection shows as a refusal.
 */
export const send = (
  port: number,
  path: string,
  options: { readonly method?: string; readonly headers?: Record<string, string>; readonly body?: string } = {}
) =>
  Effect.callback<Answer, Error>((resume) => {
    const outgoing = request(
      { host: "127.0.0.1", port, path, method: options.method ?? "GET", headers: options.headers, agent: false },
      (response) => {
        let text = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => {
          text += chunk
        })
        response.on("end", () => {
          let json: unknown
          try {
            json = JSON.parse(text)
          } catch {
            json = undefined
          }
          resume(Effect.succeed({ status: response.statusCode ?? 0, text, json }))
        })
        response.on("error", (error) => resume(Effect.fail(error)))
      }
    )
    outgoing.on("error", (error) => resume(Effect.fail(error)))
    outgoing.end(options.body)
    return Effect.sync(() => outgoing.destroy())
  })

/** One GET on a fresh connection. */
export const get = (port: number, path: string) => send(port, path)

/** The error code of a TCP connection attempt (`ECONNREFUSED`), or "connected". */
export const tryConnect = (port: number) =>
  Effect.callback<string>((resume) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed("connected"))
    })
    socket.once("error", (error: NodeJS.ErrnoException) => resume(Effect.succeed(error.code ?? error.message)))
    return Effect.sync(() => socket.destroy())
  })

/** A port free right now on 127.0.0.1 (the kernel's choice, released at once). */
export const freePort = Effect.callback<number>((resume) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => {
    const { port } = probe.address() as AddressInfo
    probe.close(() => resume(Effect.succeed(port)))
  })
})

/** How long one attempt of `pollUntil` may wait for its answer. */
const ATTEMPT_TIMEOUT = "5 seconds"

/** Polls `path` every 200 ms until `accept` holds for the answer, or fails after `timeoutMs`. */
export const pollUntil = (port: number, path: string, accept: (answer: Answer) => boolean, timeoutMs: number) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    let last: Answer | string = "no answer yet"
    while (Date.now() < deadline) {
      // Each attempt is bounded too: a server that accepts the connection and never answers must
      // fail the poll at its deadline with that said, not hang past it.
      const answer = yield* get(port, path).pipe(
        Effect.timeout(ATTEMPT_TIMEOUT),
        Effect.catch((error) => Effect.succeed(`${error.message} (${path})`))
      )
      if (typeof answer !== "string" && accept(answer)) return answer
      last = answer
      yield* Effect.sleep("200 millis")
    }
    return yield* Effect.fail(
      new Error(`GET ${path} never matched within ${timeoutMs} ms; last: ${JSON.stringify(last)}`)
    )
  })
