import { assert, describe } from "@effect/vitest"
import { CARD_KEYS } from "@payments-gaming/domain/test/support/cardFixtures"
import { unique } from "@payments-gaming/domain/test/support/fixtures"
import { Cause, Effect, Logger } from "effect"
import { SqlClient } from "effect/sql"
import { request, tokenFor, withTestServer } from "../../support/TestServer.ts"

const logLines: Array<string> = []
const capture = Logger.make<unknown, void>(({ message, cause }) => {
  logLines.push(`${JSON.stringify(message)} ${Cause.pretty(cause)}`)
})

const year = new Date().getUTCFullYear()
const card = (cardNumber: string, overrides: Record<string, unknown> = {}) => ({
  cardholderName: "Ada Okafor",
  cardNumber,
  expiryMonth: 12,
  expiryYear: year + 2,
  cvv: "123",
  ...overrides
})

const PUBLISHED: Array<[string, string, string, string]> = [
  ["4242424242424242", "VISA", "4242 4242 **** 4242", "123"],
  ["4111111111111111", "VISA", "4111 1111 **** 1111", "123"],
  ["5555555555554444", "MASTERCARD", "5555 5555 **** 4444", "123"],
  ["2223003122003222", "MASTERCARD", "2223 0031 **** 3222", "123"],
  ["378282246310005", "AMEX", "3782 **** **** 0005", "1234"],
  ["6011111111111117", "DISCOVER", "6011 1111 **** 1117", "123"],
  ["5061460410120223210", "VERVE", "5061 4604 **** 3210", "123"],
  // Shorter than 16 digits: both middle groups hidden (CONTRACT §3).
  ["30569309025904", "DINERS", "3056 **** **** 5904", "123"],
  ["501800000009", "MAESTRO", "5018 **** **** 0009", "123"]
]

describe("cards over HTTP", () => {
  withTestServer("120 seconds", [capture])((it) => {
    it.effect("each published test number gets its brand, the mask and the exact spec response", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor(unique("holder"))
        const maskById: Record<string, string> = {}
        for (const [number, brand, masked, cvv] of PUBLISHED) {
          const before = Math.floor(Date.now() / 1000)
          const response = yield* request("/v1/user/cards", { method: "POST", token, body: card(number, { cvv }) })
          assert.strictEqual(response.status, 200, JSON.stringify(response.json))
          assert.deepStrictEqual(Object.keys(response.json), ["timestamp", "status", "success", "message", "data"])
          assert.match(response.json.timestamp, /^\d{13}$/)
          assert.strictEqual(response.json.message, "Card added successfully")
          const data = response.json.data
          assert.deepStrictEqual(Object.keys(data), CARD_KEYS)
          assert.match(data.cardId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
          assert.strictEqual(data.brand, brand, number)
          assert.strictEqual(data.maskedNumber, masked, number)
          maskById[data.cardId] = masked
          assert.strictEqual(data.last4, number.slice(-4))
          assert.strictEqual(data.expiryMonth, 12)
          assert.strictEqual(data.expiryYear, year + 2)
          assert.match(data.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
          assert.approximately(Date.parse(data.createdAt) / 1000, before, 5)
          assert.notInclude(response.text, number)
        }
        // The list answers the same mask for each card (cards added within one second list by id).
        const listed = yield* request("/v1/user/cards", { token })
        assert.deepStrictEqual(
          Object.fromEntries(
            listed.json.data.map((listedCard: { cardId: string; maskedNumber: string }) => [
              listedCard.cardId,
              listedCard.maskedNumber
            ])
          ),
          maskById
        )
      })
    )

    it.effect("every validation rule has a failing case with a 400 and an errors entry for its field", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor(unique("validator"))
        const cases: Array<[Record<string, unknown>, string]> = [
          [card("4242 4242 4242 4242"), "cardNumber"],
          [card("42424242424"), "cardNumber"],
          [card("42424242424242424242"), "cardNumber"],
          [card("4242424242424241"), "cardNumber"],
          [card("9999999999999995"), "cardNumber"],
          [card("4242424242424242", { cardholderName: " A " }), "cardholderName"],
          [card("4242424242424242", { cardholderName: "x".repeat(101) }), "cardholderName"],
          [card("4242424242424242", { expiryMonth: 13 }), "expiryMonth"],
          [card("4242424242424242", { expiryMonth: 0 }), "expiryMonth"],
          [card("4242424242424242", { expiryYear: 26 }), "expiryYear"],
          [card("4242424242424242", { expiryYear: year - 1 }), "expiryYear"],
          [card("4242424242424242", { expiryYear: year + 21 }), "expiryYear"],
          [card("4242424242424242", { cvv: "12a" }), "cvv"],
          [card("4242424242424242", { cvv: "1234" }), "cvv"],
          [card("378282246310005", { cvv: "123" }), "cvv"],
          [{ cardNumber: "4242424242424242" }, "cardholderName"]
        ]
        for (const [body, path] of cases) {
          const response = yield* request("/v1/user/cards", { method: "POST", token, body })
          assert.strictEqual(response.status, 400, JSON.stringify(body))
          const paths = response.json.errors.map((issue: { path: string }) => issue.path)
          assert.include(paths, path, `${JSON.stringify(body)} → ${JSON.stringify(response.json.errors)}`)
          for (const issue of response.json.errors) assert.isString(issue.message)
        }
        // A card that expired last month is refused; this month's is still valid.
        const now = new Date()
        const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1))
        const expired = yield* request("/v1/user/cards", {
          method: "POST",
          token,
          body: card("4242424242424242", {
            expiryMonth: lastMonth.getUTCMonth() + 1,
            expiryYear: lastMonth.getUTCFullYear()
          })
        })
        assert.strictEqual(expired.status, 400)
        const thisMonth = yield* request("/v1/user/cards", {
          method: "POST",
          token,
          body: card("4242424242424242", { expiryMonth: now.getUTCMonth() + 1, expiryYear: now.getUTCFullYear() })
        })
        assert.strictEqual(thisMonth.status, 200)
      })
    )

    it.effect(
      "a card number in the name in fullwidth or Arabic-Indic digits, or a lone surrogate anywhere, is a 400; nothing stored",
      () =>
        Effect.gen(function* () {
          const userId = unique("scripts")
          const token = yield* tokenFor(userId)
          const digits = "4242424242424242"
          const inScript = (zero: number) => [...digits].map((d) => String.fromCodePoint(zero + Number(d))).join("")
          for (const name of [`Ada ${inScript(0xff10)}`, `Ada ${inScript(0x0660)}`]) {
            const response = yield* request("/v1/user/cards", {
              method: "POST",
              token,
              body: card("5555555555554444", { cardholderName: name })
            })
            assert.strictEqual(response.status, 400, name)
            assert.deepStrictEqual(
              response.json.errors.map((issue: { path: string }) => issue.path),
              ["cardholderName"]
            )
          }
          // JSON.stringify writes a lone surrogate as its escape, as a hostile client would.
          for (const body of [
            card("5555555555554444", { cardholderName: "Ada \ud800 Obi" }),
            card("5555555555554444", { cardholderName: "Ada Obi", extra: { "\udfff": 1 } })
          ]) {
            const response = yield* request("/v1/user/cards", { method: "POST", token, body })
            assert.strictEqual(response.status, 400, JSON.stringify(body))
            assert.strictEqual(response.json.message, "Request body contains a lone surrogate")
          }
          // Other routes refuse it the same way, before authentication or any field is read.
          const trivia = yield* request("/v1/gaming/trivia/challenges", {
            method: "POST",
            body: { title: "quiz \udbff" }
          })
          assert.strictEqual(trivia.status, 400)
          const sql = yield* SqlClient.SqlClient
          const [stored] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM cards WHERE user_id = ${userId}`
          assert.strictEqual(stored?.n, 0)
          // A surrogate pair (an emoji) is a character like any other.
          const emoji = yield* request("/v1/user/cards", {
            method: "POST",
            token,
            body: card("5555555555554444", { cardholderName: "Ada \u{1f600}" })
          })
          assert.strictEqual(emoji.status, 200)
          assert.strictEqual(emoji.json.data.cardholderName, "Ada \u{1f600}")
        })
    )

    it.effect("a duplicate is 409 whatever the expiry, also when sent concurrently; another user may add it", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor(unique("dup"))
        const answers = yield* Effect.all(
          Array.from({ length: 10 }, (_, i) =>
            request("/v1/user/cards", {
              method: "POST",
              token,
              body: card("4111111111111111", { expiryMonth: (i % 12) + 1 })
            })
          ),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(answers.map((answer) => answer.status).sort(), [200, ...Array(9).fill(409)])
        const other = yield* tokenFor(unique("other"))
        assert.strictEqual(
          (yield* request("/v1/user/cards", { method: "POST", token: other, body: card("4111111111111111") })).status,
          200
        )
      })
    )

    it.effect("the eleventh active card is 409, also when sent concurrently; deleting frees a place", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor(unique("limit"))
        const numbers = [
          "4242424242424242",
          "4111111111111111",
          "5555555555554444",
          "2223003122003222",
          "6011111111111117",
          "5061460410120223210",
          "4000056655665556",
          "5200828282828210",
          "5105105105105100",
          "4012888888881881",
          "6011000990139424",
          "3566002020360505"
        ]
        const answers = yield* Effect.all(
          numbers.map((number) => request("/v1/user/cards", { method: "POST", token, body: card(number) })),
          { concurrency: "unbounded" }
        )
        const statuses = answers.map((answer) => answer.status)
        assert.strictEqual(statuses.filter((status) => status === 200).length, 10, JSON.stringify(statuses))
        assert.strictEqual(statuses.filter((status) => status === 409).length, 2)
        const first = answers.find((answer) => answer.status === 200)!
        const removed = yield* request(`/v1/user/cards/${first.json.data.cardId}`, { method: "DELETE", token })
        assert.strictEqual(removed.status, 200)
        assert.isNull(removed.json.data)
        const rejected = numbers[statuses.indexOf(409)]!
        assert.strictEqual(
          (yield* request("/v1/user/cards", { method: "POST", token, body: card(rejected) })).status,
          200
        )
      })
    )

    it.effect("another user's card is 404 to delete; a bad card id is 400", () =>
      Effect.gen(function* () {
        const owner = yield* tokenFor(unique("owner"))
        const added = yield* request("/v1/user/cards", { method: "POST", token: owner, body: card("5555555555554444") })
        const intruder = yield* tokenFor(unique("intruder"))
        const response = yield* request(`/v1/user/cards/${added.json.data.cardId}`, {
          method: "DELETE",
          token: intruder
        })
        assert.strictEqual(response.status, 404)
        assert.strictEqual(
          (yield* request("/v1/user/cards/not-a-uuid", { method: "DELETE", token: owner })).status,
          400
        )
        assert.strictEqual(
          (yield* request("/v1/user/cards", { method: "POST", body: card("5555555555554444") })).status,
          401
        )
      })
    )

    it.effect("neither a full card number nor a CVV is in any table or column, or in the logs", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor(unique("pci"))
        const secretCvv = "9876"
        yield* request("/v1/user/cards", { method: "POST", token, body: card("378282246310005", { cvv: secretCvv }) })
        yield* request("/v1/user/cards", { method: "POST", token, body: card("4242424242424241", { cvv: "987" }) })
        const sql = yield* SqlClient.SqlClient
        // A 4-digit CVV turns up by chance inside random UUIDs and times, which hold no card data:
        // those columns are left out, and UUIDs (request ids) are cut from the logs before searching.
        const columns = yield* sql<{ table: string; column: string }>`
          SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
          WHERE table_schema = 'public'
            AND data_type NOT IN ('uuid', 'timestamp with time zone', 'timestamp without time zone', 'date')`
        const needles = [...PUBLISHED.map(([number]) => number), "4242424242424241", secretCvv]
        for (const { table, column } of columns) {
          for (const needle of needles) {
            const hits = yield* sql<{ n: string }>`
              SELECT count(*)::text AS n FROM ${sql(table)} WHERE ${sql(column)}::text LIKE ${`%${needle}%`}`
            assert.strictEqual(hits[0]?.n, "0", `${needle} found in ${table}.${column}`)
          }
        }
        const logs = logLines
          .join("\n")
          .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<uuid>")
        assert.isAbove(logLines.length, 0)
        for (const needle of needles) assert.notInclude(logs, needle)
      })
    )
  })
})
