import { assert, describe } from "@effect/vitest"
import { credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { deliverWebhook, request, type TestResponse, tokenFor, withTestServer } from "../../support/TestServer.ts"

const SEALS = "/v1/admin/ledger/seals"
const LATEST = "/v1/admin/ledger/seals/latest"

const asAdmin = (path: string) => Effect.flatMap(tokenFor("ops", ["admin"]), (token) => request(path, { token }))

const accountNumber = () => String(Math.floor(1e9 + Math.random() * 8e9))

/** A linked account credited by the webhook: one ledger transaction. */
const creditOnce = Effect.gen(function* () {
  const account = accountNumber()
  const link = yield* Effect.flatMap(tokenFor("ops", ["admin"]), (token) =>
    request(`/v1/admin/virtual-accounts/${account}`, {
      method: "PUT",
      token,
      body: { userId: unique("sealed"), currency: "NGN" }
    })
  )
  assert.strictEqual(link.status, 201, link.text)
  const body = JSON.stringify(
    credit({ reference: unique("VA"), accountNumber: account, amount: "100.00", fee: "0", settled: "100.00" })
  )
  assert.strictEqual((yield* deliverWebhook(body)).status, 200)
})

/** Asks until the server's own sealer has sealed every transaction (no timing is asserted). */
const untilAllSealed = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ unsealed: string }>`SELECT count(*)::text AS unsealed FROM ledger_transactions t
    WHERE NOT EXISTS (SELECT 1 FROM ledger_seal_members m WHERE m.transaction_id = t.id)`
  if (row?.unsealed !== "0") return yield* Effect.fail("not sealed yet")
}).pipe(Effect.retry(Schedule.spaced("100 millis")), Effect.timeout("30 seconds"))

interface SealJson {
  readonly sequence: number
  readonly hash: string
  readonly previousHash: string
  readonly transactions: number
  readonly sealedAt: string
}

describe("the sealed ledger's admin API over HTTP", () => {
  withTestServer("120 seconds", [], { LEDGER_SEAL_INTERVAL: "200 millis" })((it) => {
    it.effect("is 401 without a token and 403 without the admin role", () =>
      Effect.gen(function* () {
        const player = yield* tokenFor("player")
        for (const path of [SEALS, LATEST]) {
          assert.strictEqual((yield* request(path)).status, 401, path)
          const forbidden = yield* request(path, { token: player })
          assert.strictEqual(forbidden.status, 403, path)
          assert.deepInclude(forbidden.json, { success: false, data: null })
        }
      })
    )

    it.effect("latest is a 404 while nothing is sealed; the background sealer seals each credit, newest first", () =>
      Effect.gen(function* () {
        const empty = yield* asAdmin(LATEST)
        assert.strictEqual(empty.status, 404, empty.text)
        assert.deepInclude(empty.json, { success: false, status: 404, data: null })
        const none = yield* asAdmin(SEALS)
        assert.strictEqual(none.status, 200)
        assert.deepStrictEqual(none.json.data, { items: [], nextCursor: null })

        for (let round = 0; round < 3; round++) {
          yield* creditOnce
          yield* untilAllSealed
        }
        const latest: TestResponse = yield* asAdmin(LATEST)
        assert.strictEqual(latest.status, 200, latest.text)
        const head: SealJson = latest.json.data
        assert.deepStrictEqual(Object.keys(head).sort(), [
          "hash",
          "previousHash",
          "sealedAt",
          "sequence",
          "transactions"
        ])
        assert.match(head.hash, /^[0-9a-f]{64}$/)
        assert.match(head.sealedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
        assert.isAtLeast(head.sequence, 3)

        const seen: Array<SealJson> = []
        let cursor: string | null = null
        do {
          const page: TestResponse = yield* asAdmin(
            `${SEALS}?limit=1${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
          )
          assert.strictEqual(page.status, 200, page.text)
          seen.push(...page.json.data.items)
          cursor = page.json.data.nextCursor
        } while (cursor !== null)
        assert.deepStrictEqual(seen[0], head, "newest first")
        assert.deepStrictEqual(
          seen.map((seal) => seal.sequence),
          Array.from({ length: head.sequence }, (_, i) => head.sequence - i)
        )
        for (let i = 0; i + 1 < seen.length; i++) {
          assert.strictEqual(seen[i]?.previousHash, seen[i + 1]?.hash, "each seal links to the one before")
        }
        assert.strictEqual(seen.at(-1)?.previousHash, "0".repeat(64))
        assert.strictEqual(
          seen.reduce((sum, seal) => sum + seal.transactions, 0),
          3
        )
        const all = yield* asAdmin(SEALS)
        assert.deepStrictEqual(all.json.data.items, seen)
        assert.isNull(all.json.data.nextCursor)
      })
    )

    it.effect("refuses a bad limit or cursor with a 400", () =>
      Effect.gen(function* () {
        for (const query of ["limit=0", "limit=201", "limit=abc", "cursor=not-a-cursor", "cursor=MA"]) {
          const answer = yield* asAdmin(`${SEALS}?${query}`)
          assert.strictEqual(answer.status, 400, `${query}: ${answer.text}`)
          assert.isArray(answer.json.errors, query)
        }
      })
    )
  })
})
