import { assert, describe } from "@effect/vitest"
import { credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { deliverWebhook, request, type TestResponse, tokenFor, withTestServer } from "../../support/TestServer.ts"

const EVENTS = "/v1/admin/webhook-events"
const DEAD_LETTERS = "/v1/admin/dead-letters"
const deliver = (body: string | Uint8Array) => deliverWebhook(body)

const admin = tokenFor("ops", ["admin"])
const asAdmin = (path: string, options: { readonly method?: string; readonly body?: unknown } = {}) =>
  Effect.flatMap(admin, (token) => request(path, { ...options, token }))

const link = (accountNumber: string, userId: string) =>
  asAdmin(`/v1/admin/virtual-accounts/${accountNumber}`, { method: "PUT", body: { userId, currency: "NGN" } })
const ngn = (userId: string) =>
  Effect.gen(function* () {
    const answer = yield* request("/v1/wallet", { token: yield* tokenFor(userId) })
    const balances: Array<{ currency: string; available: string }> = answer.json.data.balances
    return balances.find((entry) => entry.currency === "NGN")?.available ?? "0.00"
  })

const accountNumber = () => String(Math.floor(1e9 + Math.random() * 8e9))

/** A credit for an account nobody has linked yet: stored `unmatched`. Its event id. */
const unmatchedCredit = (account: string, amount = "100.00") =>
  Effect.gen(function* () {
    const reference = unique("VA")
    const answer = yield* deliver(
      JSON.stringify(credit({ reference, accountNumber: account, amount, fee: "0", settled: amount }))
    )
    assert.strictEqual(answer.status, 200)
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: string }>`SELECT id::text AS id FROM webhook_events WHERE reference = ${reference}`
    return { reference, id: rows[0]!.id }
  })

interface Item {
  readonly id: string
  readonly kind: string
  readonly outcome: string
  readonly receivedAt: string
}

/** Every page of a listing with `limit`, following `nextCursor` until it is null. */
const allPages = (path: string, query: string, limit: number) =>
  Effect.gen(function* () {
    const items: Array<Item> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const answer: TestResponse = yield* asAdmin(
        `${path}?limit=${limit}${query}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
      )
      assert.strictEqual(answer.status, 200, answer.text)
      const page: { items: Array<Item>; nextCursor: string | null } = answer.json.data
      assert.isAtMost(page.items.length, limit)
      if (page.nextCursor !== null) assert.lengthOf(page.items, limit)
      items.push(...page.items)
      cursor = page.nextCursor
      pages += 1
    } while (cursor !== null)
    return { items, pages }
  })

const storedOrder = (where: { readonly outcome?: string; readonly kind?: string } = {}) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string }>`SELECT id::text AS id FROM webhook_events
      WHERE (${where.outcome ?? null}::text IS NULL OR outcome = ${where.outcome ?? null})
        AND (${where.kind ?? null}::text IS NULL OR kind = ${where.kind ?? null})
      ORDER BY received_at DESC, id DESC`.pipe(Effect.map((rows) => rows.map((row) => row.id)))
  )

describe("the admin webhook-event API over HTTP", () => {
  withTestServer("120 seconds")((it) => {
    const someId = "0b6f7c1e-5d0a-4a57-9a55-3d8e2f1c9b10"
    const routes: ReadonlyArray<[string, string, unknown?]> = [
      ["GET", EVENTS],
      ["GET", `${EVENTS}/${someId}`],
      ["POST", `${EVENTS}/${someId}/replay`],
      ["POST", `${EVENTS}/replay`, { outcome: "unmatched" }],
      ["GET", DEAD_LETTERS]
    ]

    it.effect("every endpoint is 401 without a token and 403 for a caller without the admin role", () =>
      Effect.gen(function* () {
        const player = yield* tokenFor("player")
        for (const [method, path, body] of routes) {
          const anonymous = yield* request(path, { method, body })
          assert.strictEqual(anonymous.status, 401, `${method} ${path}`)
          const forbidden = yield* request(path, { method, body, token: player })
          assert.strictEqual(forbidden.status, 403, `${method} ${path}`)
          assert.deepInclude(forbidden.json, { success: false, data: null })
        }
      })
    )

    it.effect("lists newest first in pages that join with no duplicate or gap; the last page has no cursor", () =>
      Effect.gen(function* () {
        for (let i = 0; i < 7; i++) yield* unmatchedCredit(accountNumber())
        const ignored = credit({
          reference: unique("IGN"),
          accountNumber: accountNumber(),
          top: { virtualAccountCredit: false }
        })
        assert.strictEqual((yield* deliver(JSON.stringify(ignored))).status, 200)

        const expected = yield* storedOrder()
        assert.isAtLeast(expected.length, 8)
        for (const limit of [3, 200]) {
          const { items, pages } = yield* allPages(EVENTS, "", limit)
          assert.deepStrictEqual(
            items.map((item) => item.id),
            expected,
            `limit ${limit}`
          )
          assert.strictEqual(pages, Math.ceil(expected.length / limit))
        }
        const first = (yield* asAdmin(`${EVENTS}?limit=1`)).json
        assert.deepStrictEqual(Object.keys(first).sort(), ["data", "message", "status", "success", "timestamp"])
        const item = first.data.items[0]
        assert.deepStrictEqual(Object.keys(item).sort(), ["id", "kind", "outcome", "reason", "receivedAt", "reference"])
        assert.match(item.receivedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
        assert.isString(first.data.nextCursor)
        // The default page is 50.
        const defaults = (yield* asAdmin(EVENTS)).json.data
        assert.lengthOf(defaults.items, Math.min(50, expected.length))
      })
    )

    it.effect("filters by status (outcome) and kind", () =>
      Effect.gen(function* () {
        const cases: ReadonlyArray<[string, { outcome?: string; kind?: string }]> = [
          ["&status=unmatched", { outcome: "unmatched" }],
          ["&status=ignored", { outcome: "ignored" }],
          ["&kind=ignored", { kind: "ignored" }],
          ["&kind=virtualaccount.credit&status=unmatched", { kind: "virtualaccount.credit", outcome: "unmatched" }],
          ["&status=conflict", { outcome: "conflict" }]
        ]
        for (const [query, where] of cases) {
          const { items } = yield* allPages(EVENTS, query, 2)
          assert.deepStrictEqual(
            items.map((item) => item.id),
            yield* storedOrder(where),
            query
          )
          for (const item of items) {
            if (where.outcome !== undefined) assert.strictEqual(item.outcome, where.outcome)
            if (where.kind !== undefined) assert.strictEqual(item.kind, where.kind)
          }
        }
        // The filters were tried on rows that exist (the listing test stored them).
        assert.isAbove((yield* storedOrder({ outcome: "unmatched" })).length, 2)
        assert.isNotEmpty(yield* storedOrder({ kind: "ignored" }))
      })
    )

    it.effect("a bad cursor, status, kind, reference or limit is a 400 naming the parameter", () =>
      Effect.gen(function* () {
        const forged = Buffer.from("12.not-a-uuid").toString("base64url")
        for (const [query, path] of [
          ["cursor=nonsense!", "cursor"],
          [`cursor=${forged}`, "cursor"],
          ["status=processing", "status"],
          ["kind=virtualaccount.debit", "kind"],
          ["limit=0", "limit"],
          ["limit=201", "limit"],
          ["limit=ten", "limit"],
          // A NUL reached PostgreSQL as a query value, which refused it: a 500 until refused here.
          ["reference=VA%00x", "reference"],
          [`reference=${"r".repeat(257)}`, "reference"]
        ]) {
          const answer = yield* asAdmin(`${EVENTS}?${query}`)
          assert.strictEqual(answer.status, 400, query)
          assert.isFalse(answer.json.success)
          assert.isTrue(
            answer.json.errors.some((issue: { path: string }) => issue.path === path),
            `${query}: ${answer.text}`
          )
        }
        const dead = yield* asAdmin(`${DEAD_LETTERS}?cursor=%%%`)
        assert.strictEqual(dead.status, 400)
      })
    )

    it.effect("an event's detail carries its exact raw body and processedAt; 404 unknown, 400 not a UUID", () =>
      Effect.gen(function* () {
        const reference = unique("VA")
        const raw = `  ${JSON.stringify(credit({ reference, accountNumber: accountNumber() }))}\n`
        assert.strictEqual((yield* deliver(raw)).status, 200)
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{
          id: string
        }>`SELECT id::text AS id FROM webhook_events WHERE reference = ${reference}`
        const answer = yield* asAdmin(`${EVENTS}/${row!.id}`)
        assert.strictEqual(answer.status, 200, answer.text)
        const detail = answer.json.data
        assert.deepInclude(detail, {
          id: row!.id,
          kind: "virtualaccount.credit",
          reference,
          outcome: "unmatched",
          body: raw,
          bodyEncoding: "utf8"
        })
        assert.match(detail.processedAt, /Z$/)
        assert.isString(detail.reason)

        assert.strictEqual((yield* asAdmin(`${EVENTS}/${someId}`)).status, 404)
        for (const id of ["not-a-uuid", "1", "0b6f7c1e5d0a4a579a553d8e2f1c9b10"]) {
          const bad = yield* asAdmin(`${EVENTS}/${id}`)
          assert.strictEqual(bad.status, 400, id)
          assert.strictEqual(bad.json.errors[0].path, "id")
        }
      })
    )

    it.effect("replay one after linking credits once; by outcome credits the rest once; again credits nothing", () =>
      Effect.gen(function* () {
        const userId = unique("user")
        const account = accountNumber()
        const one = yield* unmatchedCredit(account, "100.00")
        const two = yield* unmatchedCredit(account, "250.00")
        assert.strictEqual((yield* link(account, userId)).status, 201)

        const replayed = yield* asAdmin(`${EVENTS}/${one.id}/replay`, { method: "POST" })
        assert.strictEqual(replayed.status, 200, replayed.text)
        assert.deepStrictEqual(replayed.json.data, {
          eventId: one.id,
          kind: "virtualaccount.credit",
          reference: one.reference,
          replayed: true,
          outcome: "processed",
          reason: null
        })
        assert.strictEqual(yield* ngn(userId), "100.00")
        const again = yield* asAdmin(`${EVENTS}/${one.id}/replay`, { method: "POST" })
        assert.strictEqual(again.status, 200)
        assert.deepInclude(again.json.data, { replayed: false, outcome: "processed" })
        assert.strictEqual(yield* ngn(userId), "100.00")

        const bulk = yield* asAdmin(`${EVENTS}/replay`, { method: "POST", body: { outcome: "unmatched" } })
        assert.strictEqual(bulk.status, 200, bulk.text)
        const mine = bulk.json.data.filter((result: { eventId: string }) => result.eventId === two.id)
        assert.deepStrictEqual(mine, [
          {
            eventId: two.id,
            kind: "virtualaccount.credit",
            reference: two.reference,
            replayed: true,
            outcome: "processed",
            reason: null
          }
        ])
        assert.isFalse(bulk.json.data.some((result: { eventId: string }) => result.eventId === one.id))
        assert.strictEqual(yield* ngn(userId), "350.00")
        const bulkAgain = yield* asAdmin(`${EVENTS}/replay`, { method: "POST", body: { outcome: "unmatched" } })
        assert.strictEqual(bulkAgain.status, 200)
        assert.isFalse(
          bulkAgain.json.data.some((result: { eventId: string }) => [one.id, two.id].includes(result.eventId))
        )
        assert.strictEqual(yield* ngn(userId), "350.00")
        const sql = yield* SqlClient.SqlClient
        const postings = yield* sql<{ n: string }>`SELECT count(*)::text AS n FROM ledger_transactions
          WHERE idempotency_key IN (${`virtualaccount.credit:${one.reference}`}, ${`virtualaccount.credit:${two.reference}`})`
        assert.strictEqual(postings[0]!.n, "2")

        assert.strictEqual((yield* asAdmin(`${EVENTS}/${someId}/replay`, { method: "POST" })).status, 404)
        assert.strictEqual((yield* asAdmin(`${EVENTS}/nope/replay`, { method: "POST" })).status, 400)
        for (const body of [{ outcome: "processed" }, {}, { outcome: "conflict" }]) {
          const refused = yield* asAdmin(`${EVENTS}/replay`, { method: "POST", body })
          assert.strictEqual(refused.status, 400, JSON.stringify(body))
        }
      })
    )

    it.effect("dead letters are listed newest first with their bodies, base64 when not UTF-8", () =>
      Effect.gen(function* () {
        const notJson = `{"not json ${unique("dl")}`
        const binary = new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])
        assert.strictEqual((yield* deliver(notJson)).status, 400)
        assert.strictEqual((yield* deliver(binary)).status, 400)
        assert.strictEqual((yield* deliver(notJson.replace("not", "still not"))).status, 400)

        const sql = yield* SqlClient.SqlClient
        const expected = yield* sql<{ id: string }>`SELECT id::text AS id FROM webhook_dead_letters
          ORDER BY received_at DESC, id DESC`
        const { items } = yield* allPages(DEAD_LETTERS, "", 1)
        assert.deepStrictEqual(
          items.map((item) => item.id),
          expected.map((row) => row.id)
        )
        const letters = items as unknown as Array<{ body: string; bodyEncoding: string; error: string }>
        const text = letters.find((letter) => letter.body === notJson)
        assert.isDefined(text)
        assert.strictEqual(text!.bodyEncoding, "utf8")
        assert.include(text!.error, "JSON")
        const encoded = letters.find((letter) => letter.bodyEncoding === "base64")
        assert.isDefined(encoded)
        assert.deepStrictEqual(new Uint8Array(Buffer.from(encoded!.body, "base64")), binary)
        assert.deepStrictEqual(Object.keys(encoded!).sort(), ["body", "bodyEncoding", "error", "id", "receivedAt"])
      })
    )
  })
})
