import { assert, describe, it } from "@effect/vitest"
import { Api } from "@payments-gaming/api/Api"
import { RECONCILIATIONS_PATH, WEBHOOK_PATH } from "@payments-gaming/api/Paths"
import { policyOf, ReadsRawBody } from "@payments-gaming/api/RoutePolicy"
import { credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect, Logger } from "effect"
import { HttpApi } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { challengeBody } from "../../fuzz/Endpoints.ts"
import { request, signWebhook, tokenFor, withTestServer } from "../../support/TestServer.ts"

// Every line the server logs, in the production JSON format (message, annotations, spans): the
// access log must not carry query values.
const logged: Array<string> = []
const capture = Logger.map(Logger.formatJson, (line) => {
  logged.push(line)
})

/**
 * `user` has no card stored, and the same route with a clean body registers one: the 400s before
 * were the guard's.
 */
const noCardsThenServed = (user: string, token: string, path: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM cards WHERE user_id = ${user}`
    assert.strictEqual(rows[0]?.count, 0)
    const clean = yield* request(path, { method: "POST", token, rawBody: card("Ada Okafor"), headers: json })
    assert.strictEqual(clean.status, 200)
  })

const encoder = new TextEncoder()
const json = { "content-type": "application/json" }

/** `text` with the bytes of a lone surrogate (U+D800 as UTF-8 would write it) after `marker`. */
const withInvalidUtf8 = (text: string, marker: string) => {
  const at = text.indexOf(marker) + marker.length
  return new Uint8Array([...encoder.encode(text.slice(0, at)), 0xed, 0xa0, 0x80, ...encoder.encode(text.slice(at))])
}

const year = new Date().getUTCFullYear()
const card = (cardholderName: string) =>
  JSON.stringify({ cardholderName, cardNumber: "4242424242424242", expiryMonth: 12, expiryYear: year + 2, cvv: "123" })

// Query strings and spellings that name the webhook without being it: the guard must follow the
// route the router matched, not the text of the URL.
const TRICKS = ["?next=/v1/webhook/x", "?next=%2Fv1%2Fwebhook%2Fx", "?a=1&b=//V1/WEBHOOK/core-banking/provider"]

describe("the body guard follows the matched route", () => {
  it("exempts exactly the endpoints that read their own bytes: the webhook and the settlement report", () => {
    const exempt: Array<string> = []
    const guarded: Array<string> = []
    HttpApi.reflect(Api, {
      onGroup: () => {},
      onEndpoint: ({ group, endpoint }) => {
        if (endpoint.payload.size === 0) return
        const name = `${endpoint.method} ${endpoint.path}`
        ;(policyOf({ group, endpoint }, ReadsRawBody) ? exempt : guarded).push(name)
      }
    })
    // The report applies the same refusals itself, as problems of its lines (a NUL, bytes that are
    // not UTF-8: test/http/reconciliation), under its own 10 MiB limit.
    assert.deepStrictEqual(exempt, [`POST ${WEBHOOK_PATH}`, `POST ${RECONCILIATIONS_PATH}`])
    assert.include(guarded, "POST /v1/user/cards")
    assert.include(guarded, "POST /v1/gaming/trivia/challenges")
  })

  withTestServer("60 seconds", [capture])((it) => {
    it.effect("a query naming the webhook does not lift the guard on cards: 400s, nothing stored", () =>
      Effect.gen(function* () {
        const user = unique("guard-cards")
        const token = yield* tokenFor(user)
        for (const trick of TRICKS) {
          const nul = yield* request(`/v1/user/cards${trick}`, {
            method: "POST",
            token,
            rawBody: card("Ada\u0000Okafor"),
            headers: json
          })
          assert.strictEqual(nul.status, 400, `NUL ${trick}`)
          assert.strictEqual(nul.json.message, "Request body contains a NUL character")
          const invalid = yield* request(`/v1/user/cards${trick}`, {
            method: "POST",
            token,
            rawBody: withInvalidUtf8(card("Ada Okafor"), "Ada"),
            headers: json
          })
          assert.strictEqual(invalid.status, 400, `invalid UTF-8 ${trick}`)
          assert.strictEqual(invalid.json.message, "Request body is not valid UTF-8")
        }
        // Nothing stored, and the same request with a clean body is served: the 400s above were the guard's.
        yield* noCardsThenServed(user, token, `/v1/user/cards${TRICKS[0]}`)
      })
    )

    it.effect("a query naming the webhook does not lift the guard on trivia: 400s, nothing stored", () =>
      Effect.gen(function* () {
        const admin = yield* tokenFor("guard-admin", ["admin"])
        const title = unique("guard-trivia")
        for (const trick of TRICKS) {
          const nul = yield* request(`/v1/gaming/trivia/challenges${trick}`, {
            method: "POST",
            token: admin,
            rawBody: JSON.stringify(challengeBody(`${title}\u0000`)),
            headers: json
          })
          assert.strictEqual(nul.status, 400, `NUL ${trick}`)
          assert.strictEqual(nul.json.message, "Request body contains a NUL character")
          const invalid = yield* request(`/v1/gaming/trivia/challenges${trick}`, {
            method: "POST",
            token: admin,
            rawBody: withInvalidUtf8(JSON.stringify(challengeBody(title)), title),
            headers: json
          })
          assert.strictEqual(invalid.status, 400, `invalid UTF-8 ${trick}`)
          assert.strictEqual(invalid.json.message, "Request body is not valid UTF-8")
          // A replacement of an existing challenge is guarded the same way.
          const put = yield* request(`/v1/gaming/trivia/challenges/1${trick}`, {
            method: "PUT",
            token: admin,
            rawBody: JSON.stringify(challengeBody(`${title}\u0000`)),
            headers: json
          })
          assert.strictEqual(put.status, 400, `PUT NUL ${trick}`)
        }
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ count: number }>`
          SELECT count(*)::int AS count FROM trivia_challenges WHERE title LIKE ${`${title}%`}`
        assert.strictEqual(rows[0]?.count, 0)
        // A backslash followed by "u0000" is text, not a NUL: only an unescaped \u0000 is refused.
        const literal = yield* request(`/v1/gaming/trivia/challenges${TRICKS[0]}`, {
          method: "POST",
          token: admin,
          rawBody: JSON.stringify(challengeBody(`${title}\\u0000`)),
          headers: json
        })
        assert.strictEqual(literal.status, 201)
        assert.strictEqual(literal.json.data.title, `${title}\\u0000`)
      })
    )

    it.effect("doubled slashes and another case reach the same route and the same guard", () =>
      Effect.gen(function* () {
        const user = unique("guard-spelling")
        const token = yield* tokenFor(user)
        for (const path of [
          "//v1/user/cards",
          "/v1//user///cards",
          "/V1/USER/CARDS",
          "/v1/User/Cards?x=/v1/webhook/"
        ]) {
          const nul = yield* request(path, { method: "POST", token, rawBody: card("Ada\u0000Okafor"), headers: json })
          assert.strictEqual(nul.status, 400, path)
          const invalid = yield* request(path, {
            method: "POST",
            token,
            rawBody: withInvalidUtf8(card("Ada Okafor"), "Ada"),
            headers: json
          })
          assert.strictEqual(invalid.status, 400, path)
        }
        // Nothing stored; these spellings are the cards route (not a 404): a clean body is registered.
        yield* noCardsThenServed(user, token, "/V1//USER/cards")
      })
    )

    it.effect("the webhook still checks its signature over the exact bytes and dead-letters what it refuses", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const deadLetters = Effect.map(
          sql<{ count: number }>`SELECT count(*)::int AS count FROM webhook_dead_letters`,
          (rows) => rows[0]?.count ?? 0
        )
        const post = (path: string, bytes: Uint8Array, signature = signWebhook(bytes)) =>
          request(path, { method: "POST", rawBody: bytes, headers: { ...json, "x-provider-signature": signature } })
        const before = yield* deadLetters
        const reference = unique("guard-webhook")
        const accepted = yield* post(
          WEBHOOK_PATH,
          encoder.encode(JSON.stringify(credit({ reference, accountNumber: "1234567890" })))
        )
        assert.strictEqual(accepted.status, 200)
        const events = yield* sql<{ count: number }>`
          SELECT count(*)::int AS count FROM webhook_events WHERE reference = ${reference}`
        assert.strictEqual(events[0]?.count, 1)
        // A NUL and invalid UTF-8, signed: the webhook's own reader refuses and dead-letters each,
        // answering in its reduced envelope (the API's guard never saw these bytes).
        const nul = encoder.encode(JSON.stringify(credit({ reference: "nul\u0000ref", accountNumber: "1234567890" })))
        const invalid = withInvalidUtf8(
          JSON.stringify(credit({ reference: unique("guard-utf8"), accountNumber: "1234567890" })),
          "guard-utf8"
        )
        for (const [path, bytes] of [
          [WEBHOOK_PATH, nul],
          ["//V1/webhook/core-banking/provider?next=/v1/user/cards", invalid]
        ] as const) {
          const refused = yield* post(path, bytes)
          assert.strictEqual(refused.status, 400, path)
          assert.deepStrictEqual(Object.keys(refused.json), ["status", "message", "data", "errors"])
        }
        assert.strictEqual((yield* deadLetters) - before, 2)
        // Unsigned, the same bytes are a 401 and stored nowhere: the signature comes first.
        const unsigned = yield* post(WEBHOOK_PATH, nul, "0".repeat(64))
        assert.strictEqual(unsigned.status, 401)
        assert.strictEqual((yield* deadLetters) - before, 2)
      })
    )

    it.effect("the access log names the query's parameters but never their values", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor(unique("guard-log"))
        const response = yield* request("/v1/user/cards?token=secret123&email=a@b.c&limit=5&token=again", { token })
        assert.strictEqual(response.status, 200)
        const text = logged.join("\n")
        // The line was written (so the assertions below look at real output)…
        assert.include(text, "GET /v1/user/cards?token&email&limit 200")
        // …and holds no value of the query.
        for (const value of ["secret123", "a@b.c", "a%40b.c", "again"]) assert.notInclude(text, value)
      })
    )
  })
})
