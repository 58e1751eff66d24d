import { assert, describe } from "@effect/vitest"
import { replayBreaks, type StatementItem } from "@payments-gaming/domain/ledger"
import { credit, transferEvent, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { deliverWebhook, request, type TestResponse, tokenFor, withTestServer } from "../../support/TestServer.ts"

const STATEMENT = "/v1/wallet/transactions"
const adminStatement = (userId: string) => `/v1/admin/users/${encodeURIComponent(userId)}/transactions`

const admin = tokenFor("ops", ["admin"])
const asAdmin = (path: string, options: { readonly method?: string; readonly body?: unknown } = {}) =>
  Effect.flatMap(admin, (token) => request(path, { ...options, token }))
const deliver = (payload: unknown) => deliverWebhook(JSON.stringify(payload))

interface Page {
  readonly items: Array<StatementItem>
  readonly nextCursor: string | null
}

/** One page as `token`'s user sees it (or, with `path`, as an operator does). */
const page = (token: string, query: string, path = STATEMENT) =>
  Effect.gen(function* () {
    const answer = yield* request(`${path}?${query}`, { token })
    assert.strictEqual(answer.status, 200, answer.text)
    assert.deepStrictEqual(Object.keys(answer.json), ["timestamp", "status", "success", "message", "data"])
    assert.deepStrictEqual(Object.keys(answer.json.data), ["items", "nextCursor"])
    return answer.json.data as Page
  })

/** Every page with `limit`, following `nextCursor` until it is null. */
const allPages = (token: string, limit: number, query = "", path = STATEMENT) =>
  Effect.gen(function* () {
    const items: Array<StatementItem> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const found: Page = yield* page(
        token,
        `limit=${limit}${query}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
        path
      )
      assert.isAtMost(found.items.length, limit)
      if (found.nextCursor !== null) assert.lengthOf(found.items, limit)
      items.push(...found.items)
      cursor = found.nextCursor
      pages += 1
    } while (cursor !== null)
    return { items, pages }
  })

const wallet = (token: string) =>
  Effect.map(request("/v1/wallet", { token }), (answer: TestResponse) => answer.json.data)

/** A user whose one spin of the day won something (a "Try again" posts nothing): up to 40 tries. */
const prizeWinner = Effect.gen(function* () {
  for (let attempt = 0; attempt < 40; attempt++) {
    const userId = unique("statement")
    const token = yield* tokenFor(userId)
    const spin = yield* request("/v1/spin-and-win/spin", { method: "POST", token })
    assert.strictEqual(spin.status, 200, spin.text)
    const segment = spin.json.data.segment as { type: "cash" | "coin"; value: number }
    if (segment.value > 0) return { userId, token, spinId: spin.headers.get("x-spin-id") as string, segment }
  }
  return yield* Effect.die(new Error("forty spins and no prize"))
})

const accountNumber = () => String(Math.floor(1e9 + Math.random() * 8e9))

/** Every movement a wallet sees, in order: a prize, three deposits, a transfer held and returned, one held and paid. */
const history = Effect.gen(function* () {
  const winner = yield* prizeWinner
  const account = accountNumber()
  const linked = yield* asAdmin(`/v1/admin/virtual-accounts/${account}`, {
    method: "PUT",
    body: { userId: winner.userId, currency: "NGN" }
  })
  assert.strictEqual(linked.status, 201, linked.text)
  const deposits = [unique("VA"), unique("VA:colon"), unique("VA")]
  for (const [index, reference] of deposits.entries()) {
    const amount = ["100.50", "20.00", "5000.75"][index]
    const answer = yield* deliver(credit({ reference, accountNumber: account, amount, fee: "0", settled: amount }))
    assert.strictEqual(answer.status, 200, answer.text)
  }
  const returned = unique("TRF")
  const paid = unique("TRF")
  const hold = (reference: string, amount: string) =>
    asAdmin("/v1/admin/transfers", {
      method: "POST",
      body: { reference, userId: winner.userId, amount, currency: "NGN" }
    })
  assert.strictEqual((yield* hold(returned, "30.25")).status, 201)
  assert.strictEqual(
    (yield* deliver(transferEvent({ outcome: "failed", reference: returned, amount: "30.25" }))).status,
    200
  )
  assert.strictEqual((yield* hold(paid, "1000.00")).status, 201)
  assert.strictEqual(
    (yield* deliver(transferEvent({ outcome: "success", reference: paid, amount: "1000.00" }))).status,
    200
  )
  return { ...winner, account, deposits, returned, paid }
})

/** Signed amount in minor units of a statement item (coins: whole coins). */
const signed = (item: StatementItem) => {
  const [whole, fraction = ""] = item.amount.split(".")
  const minor = BigInt(`${whole}${fraction}`)
  return item.direction === "DEBIT" ? -minor : minor
}

const minorOf = (text: string) => BigInt(text.replace(".", ""))

describe("the wallet statement over HTTP", () => {
  withTestServer("180 seconds")((it) => {
    it.effect("shows every movement newest first with the balance after it, replaying to GET /v1/wallet", () =>
      Effect.gen(function* () {
        const user = yield* history
        const whole = (yield* page(user.token, "")).items
        const expected: Array<[string, string, string, string, string]> = [
          ["transfer.hold", "DEBIT", "1000.00", "NGN", user.paid],
          ["transfer.return", "CREDIT", "30.25", "NGN", user.returned],
          ["transfer.hold", "DEBIT", "30.25", "NGN", user.returned],
          ["deposit", "CREDIT", "5000.75", "NGN", user.deposits[2]!],
          ["deposit", "CREDIT", "20.00", "NGN", user.deposits[1]!],
          ["deposit", "CREDIT", "100.50", "NGN", user.deposits[0]!],
          [
            "spin.prize",
            "CREDIT",
            user.segment.type === "coin" ? String(user.segment.value) : `${user.segment.value}.00`,
            user.segment.type === "coin" ? "COIN" : "NGN",
            user.spinId
          ]
        ]
        assert.deepStrictEqual(
          whole.map((item) => [item.kind, item.direction, item.amount, item.currency, item.reference]),
          expected
        )
        for (const item of whole) {
          assert.deepStrictEqual(Object.keys(item), [
            "id",
            "occurredAt",
            "kind",
            "direction",
            "amount",
            "balanceAfter",
            "currency",
            "reference"
          ])
          assert.match(item.occurredAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
          assert.match(item.amount, item.currency === "COIN" ? /^\d+$/ : /^\d+\.\d{2}$/)
        }

        // Replay: per currency, from zero, each balance is the one before plus the signed amount,
        // and the newest is the wallet's.
        assert.deepStrictEqual(replayBreaks(whole), [])
        const running = new Map<string, bigint>()
        for (const item of [...whole].reverse()) {
          const after = (running.get(item.currency) ?? 0n) + signed(item)
          running.set(item.currency, after)
          assert.strictEqual(minorOf(item.balanceAfter), after, `${item.id} ${item.kind}`)
        }
        const balances = yield* wallet(user.token)
        assert.strictEqual(running.get("COIN") ?? 0n, BigInt(balances.coinBalance))
        const ngn = balances.balances.find((entry: { currency: string }) => entry.currency === "NGN").available
        assert.strictEqual(whole.find((item) => item.currency === "NGN")!.balanceAfter, ngn)
        assert.strictEqual(ngn, user.segment.type === "cash" ? `${4121 + user.segment.value}.25` : "4121.25")

        // An operator sees the same statement (admin route, as the CLI uses it).
        const operator = yield* admin
        assert.deepStrictEqual((yield* page(operator, "", adminStatement(user.userId))).items, whole)
        assert.deepStrictEqual((yield* page(operator, "", adminStatement(unique("nobody")))).items, [])
      })
    )

    it.effect("pages join with no duplicate and no gap, for every limit; the last page's cursor is null", () =>
      Effect.gen(function* () {
        const user = yield* history
        const whole = (yield* page(user.token, "limit=200")).items
        assert.lengthOf(whole, 7)
        for (const limit of [1, 2, 3, 7, 50]) {
          const { items, pages } = yield* allPages(user.token, limit)
          assert.deepStrictEqual(items, whole, `limit ${limit}`)
          assert.strictEqual(pages, Math.ceil(whole.length / limit), `limit ${limit}`)
        }
        const operator = yield* admin
        assert.deepStrictEqual((yield* allPages(operator, 2, "", adminStatement(user.userId))).items, whole)
      })
    )

    it.effect("deposits arriving while a client pages neither repeat nor skip what was there before", () =>
      Effect.gen(function* () {
        const user = yield* history
        const before = (yield* page(user.token, "limit=200")).items
        let delivered = false
        const deliveries = yield* Effect.forkChild(
          Effect.forEach(
            Array.from({ length: 12 }, () => unique("VA-late")),
            (reference) =>
              deliver(credit({ reference, accountNumber: user.account, amount: "1.00", fee: "0", settled: "1.00" })),
            { concurrency: 3 }
          ).pipe(
            Effect.ensuring(
              Effect.sync(() => {
                delivered = true
              })
            )
          )
        )
        // Pass after pass of small pages while the deliveries land. Each pass on its own: no id
        // twice (ids are opaque, issue 34: their order is the pages'), and every posting that existed
        // before the deliveries began in it exactly once, whatever arrived in between.
        let passes = 0
        while (passes < 3 || !delivered) {
          const { items } = yield* allPages(user.token, 2)
          const ids = items.map((item) => item.id)
          assert.strictEqual(new Set(ids).size, ids.length)
          for (const old of before) {
            assert.lengthOf(
              items.filter((item) => item.id === old.id),
              1,
              old.id
            )
          }
          passes += 1
        }
        const answers = yield* Fiber.join(deliveries)
        for (const answer of answers) assert.strictEqual(answer.status, 200)

        // Once quiet, the whole statement replays and ends at the wallet's balance again.
        const settled = (yield* allPages(user.token, 4)).items
        assert.lengthOf(settled, before.length + 12)
        assert.deepStrictEqual(replayBreaks(settled), [])
        const ngn = (yield* wallet(user.token)).balances.find((entry: { currency: string }) => entry.currency === "NGN")
        assert.strictEqual(settled.find((item) => item.currency === "NGN")!.balanceAfter, ngn.available)
        assert.deepStrictEqual(settled.slice(12), before)
      })
    )

    it.effect("filters by currency and by period, [from, to), without changing any balance shown", () =>
      Effect.gen(function* () {
        const user = yield* history
        const whole = (yield* page(user.token, "")).items
        for (const currency of ["NGN", "COIN", "USD"]) {
          const { items } = yield* allPages(user.token, 2, `&currency=${currency}`)
          assert.deepStrictEqual(
            items,
            whole.filter((item) => item.currency === currency),
            currency
          )
        }
        // The page's times have milliseconds; PostgreSQL's have microseconds. A posting is at or
        // after `from` exactly when its shown millisecond is, and before `to` exactly when its
        // shown millisecond is (both bounds being whole milliseconds).
        const oldestFirst = [...whole].reverse()
        const ms = (item: StatementItem) => Date.parse(item.occurredAt)
        const from = oldestFirst[2]!.occurredAt
        const to = oldestFirst[5]!.occurredAt
        const inPeriod = (item: StatementItem) => ms(item) >= Date.parse(from) && ms(item) < Date.parse(to)
        const period = yield* allPages(user.token, 1, `&from=${from}&to=${to}`)
        assert.deepStrictEqual(period.items, whole.filter(inPeriod))
        assert.isAtLeast(period.items.length, 1)
        const later = yield* page(user.token, `from=${encodeURIComponent(from.replace("Z", "+00:00"))}`)
        assert.deepStrictEqual(
          later.items,
          whole.filter((item) => ms(item) >= Date.parse(from))
        )
        const earlier = yield* page(user.token, `to=${to}&currency=NGN`)
        assert.deepStrictEqual(
          earlier.items,
          whole.filter((item) => ms(item) < Date.parse(to) && item.currency === "NGN")
        )
      })
    )

    it.effect(
      "ids and cursors are opaque and the user's own: no posting id shows, another user's cursor is a 400",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const ada = yield* history
          const bola = yield* history
          const first = yield* page(ada.token, "limit=2")
          const all = yield* allPages(ada.token, 50)
          const postingIds = (yield* sql<{ id: string }>`SELECT p.id::text AS id FROM ledger_postings p
          JOIN ledger_accounts a ON a.id = p.account_id WHERE a.owner_user_id = ${ada.userId}`).map((row) => row.id)
          assert.isAbove(postingIds.length, 5)
          for (const item of all.items) {
            assert.match(item.id, /^[A-Za-z0-9_-]{22}$/)
            for (const id of postingIds) {
              assert.notStrictEqual(item.id, id)
              assert.notStrictEqual(item.id, Buffer.from(id).toString("base64url"))
            }
          }
          // The cursor is the last item's id, and pages join on it.
          assert.strictEqual(first.nextCursor, first.items[1]!.id)
          assert.deepStrictEqual(all.items.slice(0, 2), first.items)
          // Another user's cursor (or an id of theirs) is refused, never read as a position in mine.
          const refused = yield* request(`${STATEMENT}?cursor=${first.nextCursor}`, { token: bola.token })
          assert.strictEqual(refused.status, 400, refused.text)
          assert.deepStrictEqual(
            refused.json.errors.map((issue: { path: string }) => issue.path),
            ["cursor"]
          )
          // An operator sees the user's own ids, so either view's cursor continues the other.
          const viaAdmin = yield* asAdmin(`${adminStatement(ada.userId)}?limit=2&cursor=${first.nextCursor}`)
          assert.strictEqual(viaAdmin.status, 200, viaAdmin.text)
          assert.deepStrictEqual(viaAdmin.json.data.items, all.items.slice(2, 4))
        })
    )

    it.effect("a bad cursor, filter or limit is a 400 in the envelope, naming what was wrong; no token is a 401", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor(unique("bad"))
        const forged = (text: string) => Buffer.from(text).toString("base64url")
        const cases: ReadonlyArray<[string, string]> = [
          ["limit=0", "limit"],
          ["limit=201", "limit"],
          ["limit=abc", "limit"],
          ["limit=1e2", "limit"],
          ["cursor=junk!", "cursor"],
          ["cursor=", "cursor"],
          [`cursor=${forged("-5")}`, "cursor"],
          [`cursor=${forged("12abc")}`, "cursor"],
          [`cursor=${"A".repeat(200)}`, "cursor"],
          ["currency=XYZ", "currency"],
          ["currency=ngn", "currency"],
          ["from=2026-02-30T00:00:00Z", "from"],
          ["from=yesterday", "from"],
          ["to=2026-11-21T18:30:00", "to"],
          ["to=1732212345678", "to"],
          ["from=2026-11-21T18:30:00Z&to=2026-11-21T18:30:00Z", "from"],
          ["from=2026-11-21T19:30:00%2B01:00&to=2026-11-21T18:29:59Z", "to"]
        ]
        const operator = yield* admin
        for (const [query, path] of cases) {
          for (const [caller, route] of [
            [token, STATEMENT],
            [operator, adminStatement("someone")]
          ] as const) {
            const answer = yield* request(`${route}?${query}`, { token: caller })
            assert.strictEqual(answer.status, 400, `${route}?${query}: ${answer.text}`)
            assert.deepInclude(answer.json, { status: 400, success: false, data: null })
            assert.match(answer.json.timestamp, /^\d{13}$/)
            assert.isTrue(
              answer.json.errors.some((error: { path: string }) => error.path === path),
              `${query}: ${answer.text}`
            )
          }
        }
        assert.strictEqual((yield* request(STATEMENT)).status, 401)
        assert.strictEqual((yield* request(adminStatement("someone"), { token })).status, 403)
        // A NUL can be in no user id (the database refuses it): a 400, not a trip to the database.
        const nul = yield* request(adminStatement("a\u0000b"), { token: operator })
        assert.strictEqual(nul.status, 400, nul.text)
        assert.deepInclude(nul.json, { success: false, data: null })
        // The longest user id the router passes as a path parameter (find-my-way's 100 characters).
        const longest = yield* request(adminStatement("x".repeat(100)), { token: operator })
        assert.strictEqual(longest.status, 200, longest.text)
      })
    )

    it.effect("a user id of 128 characters, valid as a token's sub, reaches the admin user-statement route", () =>
      Effect.gen(function* () {
        const longest = unique("long").padEnd(128, "x")
        assert.strictEqual(longest.length, 128)
        // The user's own statement works with that sub; the operator's route for the same user did not
        // (404 past the router's default 100-character parameters).
        const own = yield* page(yield* tokenFor(longest), "limit=5")
        const operators = yield* asAdmin(adminStatement(longest))
        assert.strictEqual(operators.status, 200, operators.text)
        assert.deepStrictEqual(operators.json.data, own)
        const escaped = yield* asAdmin(adminStatement(`${longest.slice(0, 120)}/é%`))
        assert.notStrictEqual(escaped.status, 500)
        const tooLong = yield* asAdmin(adminStatement(`${longest}y`))
        assert.strictEqual(tooLong.status, 404)
        assert.strictEqual(tooLong.json.success, false)
      })
    )

    it.effect("the OpenAPI document lists both statement routes with their query", () =>
      Effect.gen(function* () {
        const spec = (yield* request("/openapi.json")).json
        for (const path of ["/v1/wallet/transactions", "/v1/admin/users/{userId}/transactions"]) {
          const operation = spec.paths[path]?.get
          assert.isDefined(operation, path)
          assert.sameMembers(
            operation.parameters.filter((p: { in: string }) => p.in === "query").map((p: { name: string }) => p.name),
            ["limit", "cursor", "currency", "from", "to"]
          )
          assert.property(operation.responses, "400")
        }
      })
    )
  })
})
