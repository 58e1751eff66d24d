import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runCli, spawnNode, tempDir } from "../support/NodeProcess.ts"
import { TEST_ENV } from "../support/TestServer.ts"

/**
 * A stand-in for the service that owns DATA_DIR: it records what reached it (one JSON line per
 * request on stdout) and answers as the contract says the service would, or as it does not
 * (a 429 no endpoint declares).
 */
const FAKE_SERVICE = `
import { createServer } from "node:http"
const envelope = (status, message, data) => JSON.stringify({ timestamp: "1", status, success: status < 400, message, data })
const server = createServer((request, response) => {
  let body = ""
  request.on("data", (chunk) => { body += chunk })
  request.on("end", () => {
    console.log(JSON.stringify({
      method: request.method, url: request.url,
      bearer: /^Bearer [\\w-]+\\.[\\w-]+\\.[\\w-]+$/.test(request.headers.authorization ?? ""),
      internalKey: request.headers["x-internal-key"] ?? null, body
    }))
    const reply = (status, text) => response.writeHead(status, { "content-type": "application/json" }).end(text)
    if (request.url.startsWith("/v1/admin/notifications?")) return reply(429, envelope(429, "Too many requests", null))
    if (request.url.endsWith("/retry")) return reply(404, envelope(404, "No such notification", null))
    if (request.url === "/v1/debug/push-direct") {
      return reply(200, JSON.stringify({ success: true, provider: "APNS", providerMessageId: "fake-1",
        errorCode: null, errorMessage: null, shouldDeactivateToken: false, retryable: false }))
    }
    reply(500, envelope(500, "Internal server error", null))
  })
})
server.listen(0, "127.0.0.1", () => console.log("listening " + server.address().port))
`

const requestsOf = (stdout: string) =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { method: string; url: string; bearer: boolean; internalKey: string | null })

describe("the CLI through the service that owns DATA_DIR (the contract's typed client)", () => {
  it.live(
    "sends the admin token to every endpoint and the internal key only to the one that needs it, and reports each refusal with the service's own message",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("cli-client-")
        writeFileSync(join(dir, "fake.mjs"), FAKE_SERVICE)
        const fake = yield* spawnNode(join(dir, "fake.mjs"), [], {})
        const [, port] = yield* fake.waitForStdout(/listening (\d+)/, 10_000)
        const url = `http://127.0.0.1:${port}`
        const dataDir = join(dir, "data")
        mkdirSync(dataDir, { mode: 0o700 })
        writeFileSync(
          join(dataDir, "owner.json"),
          `${JSON.stringify({ pid: fake.pid, startedAt: new Date().toISOString(), nonce: "test", url })}\n`,
          { mode: 0o600 }
        )
        const env = { ...TEST_ENV, DATA_DIR: dataDir }

        const pushed = yield* runCli(
          ["push", "send", "--type", "APNS", "--token", "a1b2c3d4e5f6", "--title", "Hi", "--body", "There", "--json"],
          env
        )
        assert.strictEqual(pushed.code, 0, pushed.stderr)
        assert.strictEqual(JSON.parse(pushed.stdout).providerMessageId, "fake-1")

        // An answer the contract does not declare: the service's message and status, exit 1.
        const listed = yield* runCli(["notifications", "list"], env)
        assert.strictEqual(listed.code, 1)
        assert.include(listed.stderr, "Too many requests (HTTP 429)")

        // A declared 404 is what it means to the command: no such notification.
        const id = "0b6f7c1e-5d0a-4a57-9a55-3d8e2f1c9b10"
        const retried = yield* runCli(["notifications", "retry", id], env)
        assert.strictEqual(retried.code, 1)
        assert.include(retried.stderr, `no notification ${id}`)

        const requests = requestsOf(fake.stdout())
        assert.deepStrictEqual(
          requests.map(({ method, url, bearer, internalKey }) => ({
            method,
            url,
            bearer,
            internalKey: internalKey === TEST_ENV.INTERNAL_API_KEY ? "sent" : internalKey
          })),
          [
            { method: "POST", url: "/v1/debug/push-direct", bearer: true, internalKey: "sent" },
            { method: "GET", url: "/v1/admin/notifications?limit=50&offset=0", bearer: true, internalKey: null },
            { method: "POST", url: `/v1/admin/notifications/${id}/retry`, bearer: true, internalKey: null }
          ]
        )
      }).pipe(Effect.scoped),
    60_000
  )
})
