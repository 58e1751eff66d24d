/**
 * Slow clients against the real server on a real socket.
 *
 * The service's `createServer` (apps/http/src/NodeServer.ts) gives a client 10 s to deliver its
 * whole request, headers and body (`headersTimeout`, `requestTimeout`), checked every second, and
 * its `clientError` handler answers an expired request with 408 in the CONTRACT §2 envelope before
 * closing the connection. That comes before the service's own 15 s REQUEST_DEADLINE, which bounds
 * the work on a received request (503).
 *
 * Observed: a client trickling one byte every 200 ms neither blocks the event loop nor other
 * connections (each connection is parsed as its bytes arrive), and its request completes normally
 * once its last byte is in, if that is within the limit.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, layer } from "@effect/vitest"
import { TestDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import { HttpApp } from "@payments-gaming/http"
import { REQUEST_DEADLINE } from "@payments-gaming/http/middleware/ResponseMiddleware"
import { createServer } from "@payments-gaming/http/NodeServer"
import { ConfigProvider, Duration, Effect, Layer } from "effect"
import { baseUrl, TEST_ENV, TestServer, tokenFor } from "../support/TestServer.ts"
import { ErrorLog } from "./ErrorLog.ts"
import { FuzzProfile } from "./FuzzProfile.ts"
import { parseResponse, type RawExchange, trickle } from "./RawSocket.ts"
import { EPOCH_TIMESTAMP, LOCAL_TIMESTAMP } from "./Timestamps.ts"

const INTERVAL = 200
const SLOW_BODY = '{"title":1}'
const SLOW_HEADER = "X-Slow: 1\r\n\r\n"

const portOf = Effect.map(baseUrl, (url) => Number(new URL(url).port))

/** A POST whose headers arrive at once and whose body arrives a byte every 200 ms. */
const slowBody = (port: number, token: string, body = SLOW_BODY, waitMillis = 15_000) =>
  trickle(
    port,
    "POST /v1/gaming/trivia/challenges HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
      `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    body,
    INTERVAL,
    waitMillis
  )

/** A GET whose last header arrives a byte every 200 ms. */
const slowHeaders = (port: number, token: string, trickled = SLOW_HEADER, waitMillis = 15_000) =>
  trickle(
    port,
    `GET /v1/wallet HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer ${token}\r\n`,
    trickled,
    INTERVAL,
    waitMillis
  )

/** Fifty GET /healthz, one after another; resolves with the total time in milliseconds. */
const fiftyHealthChecks = (base: string) =>
  Effect.promise(async () => {
    const started = performance.now()
    for (let index = 0; index < 50; index++) {
      const response = await fetch(`${base}/healthz`)
      await response.arrayBuffer()
      if (response.status !== 200) throw new Error(`/healthz answered ${response.status}`)
    }
    return performance.now() - started
  })

const envelopeOf = (exchange: RawExchange) => {
  const response = parseResponse(exchange.bytes)
  return { ...response, json: JSON.parse(response.body) as Record<string, unknown> }
}

describe("slow clients", () => {
  // Concurrent: the request-deadline case waits 15 s, the others overlap it.
  layer(TestServer().pipe(Layer.provide(ErrorLog)), {
    timeout: "120 seconds",
    excludeTestServices: true,
    concurrent: true
  })("on the service as configured", (it) => {
    it.effect("a POST body and headers trickled a byte every 200 ms do not hold up others, then complete", () =>
      Effect.gen(function* () {
        const port = yield* portOf
        const body = slowBody(port, yield* tokenFor("slow-admin", ["admin"]))
        const headers = slowHeaders(port, yield* tokenFor("slow-user"))
        yield* Effect.sleep("500 millis")
        const healthMillis = yield* fiftyHealthChecks(yield* baseUrl)
        console.log(`[slow] 50 health checks beside 2 slow clients: ${healthMillis.toFixed(0)} ms`)
        assert.isBelow(healthMillis, 1_000, `50 health checks took ${healthMillis} ms beside slow clients`)
        // Each is answered only once its last byte is in, and then like any other request.
        const slowPost = yield* Effect.promise(() => body)
        assert.isAtLeast(slowPost.firstByteMillis ?? 0, (SLOW_BODY.length - 1) * INTERVAL)
        const post = envelopeOf(slowPost)
        assert.strictEqual(post.status, 400, post.body)
        assert.match(String(post.json.timestamp), LOCAL_TIMESTAMP)
        assert.strictEqual(post.json.message, "Invalid request body")
        const slowGet = yield* Effect.promise(() => headers)
        assert.isAtLeast(slowGet.firstByteMillis ?? 0, (SLOW_HEADER.length - 1) * INTERVAL)
        const get = envelopeOf(slowGet)
        assert.strictEqual(get.status, 200, get.body)
        assert.match(String(get.json.timestamp), EPOCH_TIMESTAMP)
      })
    )

    it.effect("twenty slow clients at once do not block /healthz, and each is answered", () =>
      Effect.gen(function* () {
        const port = yield* portOf
        const admin = yield* tokenFor("slow-admin", ["admin"])
        const user = yield* tokenFor("slow-user")
        const slow = Array.from({ length: 20 }, (_, index) =>
          index % 2 === 0 ? slowBody(port, admin) : slowHeaders(port, user)
        )
        yield* Effect.sleep("500 millis")
        const healthMillis = yield* fiftyHealthChecks(yield* baseUrl)
        console.log(`[slow] 50 health checks beside 20 slow clients: ${healthMillis.toFixed(0)} ms`)
        assert.isBelow(healthMillis, 1_000, `50 health checks took ${healthMillis} ms beside 20 slow clients`)
        const exchanges = yield* Effect.promise(() => Promise.all(slow))
        assert.deepStrictEqual(
          exchanges.map((exchange) => parseResponse(exchange.bytes).status),
          Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? 400 : 200))
        )
      })
    )

    it.effect(
      "a POST body still arriving at the 15 s request deadline has had its 408 in the envelope",
      () =>
        Effect.gen(function* () {
          const port = yield* portOf
          const admin = yield* tokenFor("slow-admin", ["admin"])
          const deadline = Duration.toMillis(Duration.fromInputUnsafe(REQUEST_DEADLINE))
          // A body that needs 5 s more than the deadline to arrive.
          const body = JSON.stringify({ title: "x".repeat(Math.ceil((deadline + 5_000) / INTERVAL)) })
          const exchange = yield* Effect.promise(() => slowBody(port, admin, body, deadline + 10_000))
          const answer = parseResponse(exchange.bytes)
          assert.strictEqual(
            answer.status,
            408,
            `after ${exchange.millis} ms: ${JSON.stringify(exchange.bytes.toString("latin1").slice(0, 200))}`
          )
          assert.deepInclude(JSON.parse(answer.body), { status: 408, success: false, data: null })
        }),
      60_000
    )

    if (FuzzProfile.long) {
      it.effect(
        "with the service's server settings, headers still incomplete after 10 s are cut within a second",
        () =>
          Effect.gen(function* () {
            const port = yield* portOf
            // 600 bytes at 200 ms each would take 120 s: far longer than the 10 s allowed.
            const exchange = yield* Effect.promise(() =>
              slowHeaders(port, "t", `X-Slow: ${"a".repeat(600)}\r\n\r\n`, 120_000)
            )
            assert.isTrue(exchange.closedByServer)
            assert.isAtLeast(exchange.millis, 10_000)
            assert.isAtMost(exchange.millis, 10_000 + 1_000 + 2_000)
            const answer = envelopeOf(exchange)
            assert.strictEqual(answer.status, 408, answer.body)
          }),
        180_000
      )
    }
  })

  // The same application on a server whose timeouts are short enough to watch them expire.
  const shortTimeouts = () => {
    const server = createServer()
    server.headersTimeout = 1_000
    server.requestTimeout = 2_000
    // Read when the server starts listening, so setting it here takes effect.
    ;(server as unknown as { connectionsCheckingInterval: number }).connectionsCheckingInterval = 200
    return server
  }
  const ShortTimeoutServer = HttpApp.pipe(
    Layer.provideMerge(NodeHttpServer.layer(shortTimeouts, { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(TestDatabase),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(TEST_ENV))),
    Layer.provide(ErrorLog)
  )

  layer(ShortTimeoutServer, { timeout: "120 seconds", excludeTestServices: true })("with short timeouts", (it) => {
    it.effect("headers outlasting headersTimeout get 408 Request Timeout in the envelope", () =>
      Effect.gen(function* () {
        const port = yield* portOf
        const token = yield* tokenFor("slow-user")
        const exchange = yield* Effect.promise(() => slowHeaders(port, token, `X-Slow: ${"a".repeat(40)}\r\n\r\n`))
        assert.isTrue(exchange.closedByServer)
        assert.isAtLeast(exchange.millis, 1_000)
        assert.isBelow(exchange.millis, 2_000)
        const answer = envelopeOf(exchange)
        assert.deepStrictEqual(Object.keys(answer.json), ["timestamp", "status", "success", "message", "data"])
        assert.strictEqual(answer.status, 408, answer.body)
        assert.strictEqual(answer.json.status, 408)
      })
    )

    it.effect("a body outlasting requestTimeout gets 408 Request Timeout in the envelope", () =>
      Effect.gen(function* () {
        const port = yield* portOf
        const admin = yield* tokenFor("slow-admin", ["admin"])
        const body = JSON.stringify({ title: "x".repeat(40) })
        const exchange = yield* Effect.promise(() =>
          trickle(
            port,
            "POST /v1/gaming/trivia/challenges HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
              `Authorization: Bearer ${admin}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
            body,
            INTERVAL,
            15_000
          )
        )
        assert.isTrue(exchange.closedByServer)
        assert.isAtLeast(exchange.millis, 2_000)
        assert.isBelow(exchange.millis, 3_000)
        const answer = envelopeOf(exchange)
        assert.strictEqual(answer.status, 408, answer.body)
        assert.strictEqual(answer.json.status, 408)
        // The request being read is known, so its 408 is in the trivia routes' local-time style.
        assert.match(String(answer.json.timestamp), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/)
      })
    )
  })
})
