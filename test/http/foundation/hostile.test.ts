import { connect } from "node:net"
import { assert, describe } from "@effect/vitest"
import { WEBHOOK_PATH } from "@payments-gaming/api/Paths"
import { credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import * as Jose from "jose"
import { baseUrl, request, signWebhook, TEST_ENV, tokenFor, withTestServer } from "../../support/TestServer.ts"

const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/
const signed = (body: string) => ({
  method: "POST",
  rawBody: body,
  headers: {
    "content-type": "application/json",
    "x-provider-signature": signWebhook(body)
  }
})

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

describe("hostile input never reaches a 500", () => {
  withTestServer("60 seconds")((it) => {
    it.effect("a NUL character in any JSON string is a 400, not a database error", () =>
      Effect.gen(function* () {
        const admin = yield* tokenFor("ops", ["admin"])
        const title = yield* request("/v1/gaming/trivia/challenges", {
          method: "POST",
          token: admin,
          rawBody: '{"title":"a\\u0000b"}',
          headers: { "content-type": "application/json" }
        })
        assert.strictEqual(title.status, 400)
        assert.match(title.json.timestamp, LOCAL)
        const transfer = yield* request("/v1/admin/transfers", {
          method: "POST",
          token: admin,
          body: { reference: "r\u0000", userId: "u", amount: "1.00", currency: "NGN" }
        })
        assert.strictEqual(transfer.status, 400)
      })
    )

    it.effect("invalid UTF-8 in a body is a 400 rather than silently replaced", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor(unique("utf8"))
        const bytes = new Uint8Array([
          ...new TextEncoder().encode('{"cardholderName":"Ad'),
          0xff,
          ...new TextEncoder().encode(
            'a","cardNumber":"4242424242424242","expiryMonth":12,"expiryYear":2030,"cvv":"123"}'
          )
        ])
        const response = yield* request("/v1/user/cards", {
          method: "POST",
          token,
          rawBody: bytes,
          headers: { "content-type": "application/json" }
        })
        assert.strictEqual(response.status, 400)
        assert.strictEqual(response.json.message, "Request body is not valid UTF-8")
      })
    )

    it.effect("a validly signed token whose sub holds a control character is a 401", () =>
      Effect.gen(function* () {
        const token = yield* Effect.promise(() =>
          new Jose.SignJWT({ roles: [] })
            .setProtectedHeader({ alg: "HS256" })
            .setSubject("user\u0000x")
            .setExpirationTime("1h")
            .sign(new TextEncoder().encode(TEST_ENV.AUTH_JWT_SECRET))
        )
        assert.strictEqual((yield* request("/v1/wallet", { token })).status, 401)
      })
    )

    it.effect("absurd amounts are a 400 on the admin API and a parked event on the webhook", () =>
      Effect.gen(function* () {
        const admin = yield* tokenFor("ops", ["admin"])
        for (const amount of [1e308, "99999999999999999.99"]) {
          const response = yield* request("/v1/admin/transfers", {
            method: "POST",
            token: admin,
            body: { reference: unique("TRF"), userId: "u", amount, currency: "NGN" }
          })
          assert.strictEqual(response.status, 400, String(amount))
        }
        const reference = unique("VA")
        const payload = credit({ reference, accountNumber: "1234567890", amount: 1e30, fee: "0", settled: 1e30 })
        const webhook = yield* request(WEBHOOK_PATH, signed(JSON.stringify(payload)))
        assert.strictEqual(webhook.status, 200)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ outcome: string }>`SELECT outcome FROM webhook_events WHERE reference = ${reference}`
        assert.strictEqual(rows[0]?.outcome, "rejected")
      })
    )

    it.effect("a NUL in a signed webhook is a 400, dead-lettered, and the parser's text is not echoed", () =>
      Effect.gen(function* () {
        const body = JSON.stringify(credit({ reference: "nul\u0000ref", accountNumber: "1234567890" }))
        const response = yield* request(WEBHOOK_PATH, signed(body))
        assert.strictEqual(response.status, 400)
        assert.deepStrictEqual(Object.keys(response.json), ["status", "message", "data", "errors"])
        const broken = yield* request(WEBHOOK_PATH, signed("[".repeat(100_000)))
        assert.strictEqual(broken.status, 400)
        assert.notInclude(broken.text, "stack")
        assert.notInclude(broken.text, "position")
      })
    )

    it.effect("paging parameters accept plain digits only", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor("pager")
        for (const query of [
          "limit=1e2",
          "limit=0x10",
          "limit=%2B5",
          "limit=%205",
          "offset=%20",
          "limit=0",
          "limit=201"
        ]) {
          assert.strictEqual((yield* request(`/v1/user/cards?${query}`, { token })).status, 400, query)
        }
        assert.strictEqual((yield* request("/v1/user/cards?limit=5&offset=0", { token })).status, 200)
      })
    )

    it.effect("the envelope style follows the route however its path is spelled", () =>
      Effect.gen(function* () {
        const upper = yield* request("/V1/GAMING/TRIVIA/CHALLENGES/abc", { token: yield* tokenFor("u") })
        assert.strictEqual(upper.status, 400)
        assert.match(upper.json.timestamp, LOCAL)
        const doubled = yield* request(`/${WEBHOOK_PATH}`, { method: "POST", rawBody: "{}" })
        assert.strictEqual(doubled.status, 401)
        assert.deepStrictEqual(Object.keys(doubled.json), ["status", "message", "data"])
      })
    )

    it.effect("Node's own parser errors get the envelope too (431, malformed request line)", () =>
      Effect.gen(function* () {
        const huge = yield* raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`)
        assert.match(huge, /^HTTP\/1.1 431/)
        const body = JSON.parse(huge.slice(huge.indexOf("\r\n\r\n") + 4))
        assert.deepStrictEqual(Object.keys(body), ["timestamp", "status", "success", "message", "data"])
        const garbage = yield* raw("FOO\x7f / HTTP/1.1\r\n\r\n")
        assert.match(garbage, /^HTTP\/1.1 400/)
        assert.include(garbage, '"success":false')
      })
    )

    it.effect("two Authorization headers are refused, whichever comes first", () =>
      Effect.gen(function* () {
        const alice = yield* tokenFor("alice")
        const bob = yield* tokenFor("bob")
        const twice = (first: string, second: string) =>
          raw(
            "GET /v1/user/cards HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
              `Authorization: Bearer ${first}\r\nauthorization: Bearer ${second}\r\n\r\n`
          )
        for (const answer of [yield* twice(alice, bob), yield* twice(alice, alice)]) {
          assert.match(answer, /^HTTP\/1.1 401/)
          const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))
          assert.strictEqual(body.message, "More than one Authorization header: send exactly one")
        }
        // One header, the same token: served.
        const once = yield* raw(
          `GET /v1/user/cards HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${alice}\r\n\r\n`
        )
        assert.match(once, /^HTTP\/1.1 200/)
      })
    )

    it.effect("Node's parser errors take the route's envelope when the path is known", () =>
      Effect.gen(function* () {
        const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))
        // The webhook's reduced envelope, for a header block too large…
        const webhook = yield* raw(
          `POST /v1/WEBHOOK//core-banking/provider HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`
        )
        assert.match(webhook, /^HTTP\/1.1 431/)
        assert.deepStrictEqual(bodyOf(webhook), { status: 431, message: "Request headers too large", data: null })
        // …trivia's local date-time (APP_TIMEZONE) for a malformed header…
        const trivia = yield* raw("POST /v1/gaming/trivia/challenges HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
        assert.match(trivia, /^HTTP\/1.1 400/)
        const triviaBody = bodyOf(trivia)
        assert.deepStrictEqual(Object.keys(triviaBody), ["timestamp", "status", "success", "message", "data"])
        assert.match(triviaBody.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/)
        // …and epoch milliseconds everywhere else.
        const cards = yield* raw("POST /v1/user/cards HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
        assert.match(bodyOf(cards).timestamp, /^\d{13}$/)
      })
    )
  })
})
