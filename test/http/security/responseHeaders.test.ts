import { connect } from "node:net"
import { assert, describe } from "@effect/vitest"
import { credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect } from "effect"
import {
  baseUrl,
  deliverWebhook,
  request,
  type TestResponse,
  tokenFor,
  withTestServer
} from "../../support/TestServer.ts"

/** Writes raw bytes on a socket and returns what the server answered. */
const raw = (bytes: string) =>
  Effect.gen(function* () {
    const port = Number(new URL(yield* baseUrl).port)
    return yield* Effect.callback<string>((resume) => {
      const socket = connect(port, "127.0.0.1", () => socket.write(bytes))
      let answer = ""
      socket.on("data", (chunk) => {
        answer += chunk.toString("utf8")
      })
      socket.on("close", () => resume(Effect.succeed(answer)))
      socket.on("error", () => resume(Effect.succeed(answer)))
    })
  })

const assertNotStored = (response: TestResponse, what: string) => {
  assert.strictEqual(response.headers.get("cache-control"), "no-store", what)
  assert.strictEqual(response.headers.get("x-content-type-options"), "nosniff", what)
}

describe("answers are never cached and never sniffed (issue 34, finding 12)", () => {
  withTestServer("60 seconds")((it) => {
    it.effect(
      "authenticated answers, cards and an admin's raw webhook body among them, carry no-store and nosniff",
      () =>
        Effect.gen(function* () {
          const user = yield* tokenFor(unique("headers"))
          const admin = yield* tokenFor("ops", ["admin"])
          assertNotStored(yield* request("/v1/user/cards", { token: user }), "GET /v1/user/cards")
          assertNotStored(yield* request("/v1/wallet", { token: user }), "GET /v1/wallet")
          const body = JSON.stringify(credit({ reference: unique("hdr"), accountNumber: "0000000000" }))
          assert.strictEqual((yield* deliverWebhook(body)).status, 200)
          const events = yield* request("/v1/admin/webhook-events?limit=1", { token: admin })
          assertNotStored(events, "GET /v1/admin/webhook-events")
          const event = yield* request(`/v1/admin/webhook-events/${events.json.data.items[0].id}`, { token: admin })
          assert.strictEqual(event.status, 200)
          assert.isString(event.json.data.body)
          assertNotStored(event, "GET /v1/admin/webhook-events/{id}")
        })
    )

    it.effect("so do refusals, unauthenticated routes and the server's own parser errors", () =>
      Effect.gen(function* () {
        assertNotStored(yield* request("/v1/user/cards"), "401")
        assertNotStored(yield* request("/v1/nowhere"), "404")
        assertNotStored(yield* request("/healthz"), "GET /healthz")
        const refused = yield* raw("GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
        assert.match(refused, /^HTTP\/1\.1 400 /)
        assert.match(refused, /\r\nX-Content-Type-Options: nosniff\r\n/i)
        assert.match(refused, /\r\nCache-Control: no-store\r\n/i)
      })
    )
  })
})
