import { request } from "node:http"
import { signWebhook, TEST_SECRETS, tokenFor } from "@payments-gaming/adapters/test/support/TestSecrets"
import { WEBHOOK_PATH as WEBHOOK } from "@payments-gaming/api/Paths"
import { Effect } from "effect"
import { freePort, pollUntil } from "./Http.ts"
import { SERVER, spawnNode } from "./NodeProcess.ts"

export { signWebhook, tokenFor } from "@payments-gaming/adapters/test/support/TestSecrets"
export { WEBHOOK_PATH as WEBHOOK } from "@payments-gaming/api/Paths"

/** The environment of every process of these tests (the suite's secrets), so the server, the CLI and the test agree. */
export const SECRETS = { ...TEST_SECRETS, LOG_LEVEL: "warn" }

/**
 * The real server as its own process on a free port, ready (GET /readyz 200) before it is returned.
 * `env` carries DATA_DIR, and DATABASE_URL unless the server is to open the embedded database.
 */
export const startServer = (env: Record<string, string>) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const server = yield* spawnNode(SERVER, [], { ...SECRETS, HOST: "127.0.0.1", PORT: String(port), ...env })
    // A server that dies during start-up fails the test at once, with its output, rather than
    // after the readiness deadline.
    const output = () => `\n--- stdout ---\n${server.stdout()}\n--- stderr ---\n${server.stderr()}`
    const died = server
      .exit(35_000)
      .pipe(
        Effect.flatMap((exit) =>
          Effect.fail(new Error(`server exited ${JSON.stringify(exit)} before it was ready${output()}`))
        )
      )
    const ready = pollUntil(port, "/readyz", (answer) => answer.status === 200, 30_000).pipe(
      Effect.mapError((error) => new Error(`${error.message}${output()}`))
    )
    yield* Effect.raceFirst(ready, died)
    return { server, port }
  })

export interface Delivered {
  readonly status: number
  readonly text: string
  /** The `Retry-After` header, if the answer had one. */
  readonly retryAfter: string | undefined
}

/** Why a request got no answer: the socket error code (ECONNREFUSED, ECONNRESET) or the message. */
export class NoAnswer extends Error {
  readonly code: string
  constructor(code: string) {
    super(`no answer: ${code}`)
    this.code = code
  }
}

/**
 * One HTTP request on its own connection (no keep-alive pool), so a killed server shows as an
 * error on exactly the requests that were in flight or sent after it died.
 */
export const send = (
  port: number,
  path: string,
  options: { readonly method?: string; readonly body?: string; readonly headers?: Record<string, string> } = {}
) =>
  Effect.callback<Delivered, NoAnswer>((resume) => {
    const outgoing = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: options.method ?? "GET",
        agent: false,
        headers: {
          ...options.headers,
          ...(options.body === undefined ? {} : { "content-length": String(Buffer.byteLength(options.body)) })
        }
      },
      (response) => {
        let text = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => {
          text += chunk
        })
        response.on("end", () =>
          resume(
            Effect.succeed({ status: response.statusCode ?? 0, text, retryAfter: response.headers["retry-after"] })
          )
        )
        response.on("error", (error: NodeJS.ErrnoException) =>
          resume(Effect.fail(new NoAnswer(error.code ?? error.message)))
        )
      }
    )
    outgoing.on("error", (error: NodeJS.ErrnoException) =>
      resume(Effect.fail(new NoAnswer(error.code ?? error.message)))
    )
    outgoing.end(options.body)
    return Effect.sync(() => outgoing.destroy())
  })

/** A signed delivery of `body`, exactly as the provider sends it. */
export const deliver = (port: number, body: string) =>
  send(port, WEBHOOK, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", "x-provider-signature": signWebhook(body) }
  })

/** PUT /v1/admin/virtual-accounts/{n} with an admin token; fails unless it answers 201. */
export const linkAccount = (port: number, accountNumber: string, userId: string) =>
  Effect.gen(function* () {
    const token = yield* tokenFor("ops", ["admin"])
    const answer = yield* send(port, `/v1/admin/virtual-accounts/${accountNumber}`, {
      method: "PUT",
      body: JSON.stringify({ userId, currency: "NGN" }),
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` }
    })
    if (answer.status !== 201) return yield* Effect.die(new Error(`link answered ${answer.status}: ${answer.text}`))
  })

/** The user's NGN balance as GET /v1/wallet reports it ("0.00" when the wallet has none). */
export const ngnBalance = (port: number, userId: string, token?: string) =>
  Effect.gen(function* () {
    const bearer = token ?? (yield* tokenFor(userId))
    const answer = yield* send(port, "/v1/wallet", { headers: { authorization: `Bearer ${bearer}` } })
    if (answer.status !== 200) return yield* Effect.die(new Error(`wallet answered ${answer.status}: ${answer.text}`))
    const balances: Array<{ currency: string; available: string }> = JSON.parse(answer.text).data.balances
    return balances.find((entry) => entry.currency === "NGN")?.available ?? "0.00"
  })

/** Minor units (kobo) as the decimal string the wallet shows: 123456n → "1234.56". */
export const formatMinor = (minor: bigint) => `${minor / 100n}.${(minor % 100n).toString().padStart(2, "0")}`
