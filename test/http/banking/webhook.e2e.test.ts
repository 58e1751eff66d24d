import { assert, describe } from "@effect/vitest"
import {
  CURRENT_WEBHOOK_SECRET as CURRENT_SECRET,
  PREVIOUS_WEBHOOK_SECRET as PREVIOUS_SECRET
} from "@payments-gaming/adapters/test/support/TestSecrets"
import { credit, type Json, transferEvent, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect, Logger } from "effect"
import { SqlClient } from "effect/sql"
import { deliverWebhook, request, signWebhook, tokenFor, withTestServer } from "../../support/TestServer.ts"

const hmac = (secret: string, body: string) => signWebhook(body, secret)

const deliver = (payload: Json | string, signature?: string | null) => {
  const body = typeof payload === "string" ? payload : JSON.stringify(payload)
  return signature === undefined ? deliverWebhook(body) : deliverWebhook(body, signature)
}

const logLines: Array<{ readonly level: string; readonly text: string }> = []
const capture = Logger.make<unknown, void>(({ message, logLevel }) => {
  logLines.push({ level: logLevel, text: JSON.stringify(message) })
})

/** The value of `webhook_conflicts_total` for `kind` on /metrics; 0 before the first conflict. */
const conflictCount = (kind: string) =>
  Effect.map(request("/metrics"), (response) => {
    const line = response.text.split("\n").find((text) => text.startsWith(`webhook_conflicts_total{kind="${kind}"}`))
    return line === undefined ? 0 : Number(line.split(" ").at(-1))
  })

const admin = tokenFor("ops", ["admin"])
const link = (accountNumber: string, userId: string, currency = "NGN") =>
  Effect.flatMap(admin, (token) =>
    request(`/v1/admin/virtual-accounts/${accountNumber}`, { method: "PUT", token, body: { userId, currency } })
  )
const wallet = (userId: string) => Effect.flatMap(tokenFor(userId), (token) => request("/v1/wallet", { token }))
const ngn = (response: { json: { data: { balances: Array<{ currency: string; available: string }> } } }) =>
  response.json.data.balances.find((entry) => entry.currency === "NGN")?.available ?? "0.00"

/** A user with a linked virtual account of their own. */
const newAccount = Effect.gen(function* () {
  const userId = unique("user")
  const accountNumber = String(Math.floor(1e9 + Math.random() * 8e9))
  const linked = yield* link(accountNumber, userId)
  assert.strictEqual(linked.status, 201)
  return { userId, accountNumber }
})

const countEvents = (reference: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ count: string }>`SELECT count(*)::text AS count FROM webhook_events WHERE reference = ${reference}`.pipe(
      Effect.map((rows) => Number(rows[0]?.count))
    )
  )

describe("core-banking webhook over HTTP", () => {
  withTestServer("120 seconds", [capture])((it) => {
    it.effect("a signed credit credits settled_amount and answers the reduced envelope; a redelivery is a no-op", () =>
      Effect.gen(function* () {
        const { userId, accountNumber } = yield* newAccount
        const payload = credit({ reference: unique("VA"), accountNumber })
        const first = yield* deliver(payload)
        assert.strictEqual(first.status, 200)
        assert.deepStrictEqual(first.json, { status: 200, message: "Webhook processed successfully", data: "OK" })
        assert.strictEqual(ngn(yield* wallet(userId)), "4950.50")
        const again = yield* deliver(payload)
        assert.strictEqual(again.status, 200)
        assert.strictEqual(ngn(yield* wallet(userId)), "4950.50")
      })
    )

    it.effect(
      "the same reference with another amount is 200, kept as a conflict, logged, counted, never credited",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const { userId, accountNumber } = yield* newAccount
          const reference = unique("VA")
          const original = credit({ reference, accountNumber, amount: "1500.00", fee: "0", settled: "1500.00" })
          assert.strictEqual((yield* deliver(original)).status, 200)
          assert.strictEqual(ngn(yield* wallet(userId)), "1500.00")
          const before = yield* conflictCount("virtualaccount.credit")

          const body = JSON.stringify(
            credit({ reference, accountNumber, amount: "9500.00", fee: "0", settled: "9500.00" })
          )
          const signature = hmac(CURRENT_SECRET, body)
          const answer = yield* deliver(body, signature)
          assert.strictEqual(answer.status, 200)
          assert.deepStrictEqual(answer.json, { status: 200, message: "Webhook processed successfully", data: "OK" })

          const rows = yield* sql<{
            id: string
            outcome: string
            raw_body: Uint8Array
            signature: string
            reason: string
          }>`
          SELECT id::text AS id, outcome, raw_body, signature, reason FROM webhook_events
          WHERE reference = ${reference} ORDER BY received_at, id`
          assert.deepStrictEqual(rows.map((row) => row.outcome).sort(), ["conflict", "processed"])
          const first = rows.find((row) => row.outcome === "processed")!
          const conflict = rows.find((row) => row.outcome === "conflict")!
          assert.strictEqual(Buffer.from(conflict.raw_body).toString("utf8"), body)
          assert.strictEqual(conflict.signature, signature)
          assert.include(conflict.reason, first.id)
          assert.strictEqual(ngn(yield* wallet(userId)), "1500.00")

          const warnings = logLines.filter((line) => line.level === "Warn" && line.text.includes(reference))
          assert.strictEqual(warnings.length, 1, JSON.stringify(logLines))
          const warning = warnings[0]!.text
          for (const needle of ["1500", "9500", first.id, conflict.id]) assert.include(warning, needle)
          assert.notInclude(warning, signature)
          assert.notInclude(warning, CURRENT_SECRET)
          assert.strictEqual(yield* conflictCount("virtualaccount.credit"), before + 1)

          // An identical redelivery of the original stays a no-op: nothing stored, logged or counted.
          assert.strictEqual((yield* deliver(original)).status, 200)
          assert.strictEqual(yield* countEvents(reference), 2)
          assert.strictEqual(yield* conflictCount("virtualaccount.credit"), before + 1)
          assert.strictEqual(ngn(yield* wallet(userId)), "1500.00")
        })
    )

    it.effect(
      "identical conflicting redeliveries keep one conflict row, counted once; another conflict keeps its own",
      () =>
        Effect.gen(function* () {
          const { userId, accountNumber } = yield* newAccount
          const reference = unique("VA")
          const original = credit({ reference, accountNumber, amount: "1500.00", fee: "0", settled: "1500.00" })
          assert.strictEqual((yield* deliver(original)).status, 200)
          const before = yield* conflictCount("virtualaccount.credit")
          const conflicting = credit({ reference, accountNumber, amount: "9500.00", fee: "0", settled: "9500.00" })
          // Sequential repeats, one re-serialised with an amount written another way, then a burst.
          for (let index = 0; index < 3; index++) assert.strictEqual((yield* deliver(conflicting)).status, 200)
          const reworded = credit({ reference, accountNumber, amount: 9500, fee: 0, settled: "9500.000" })
          assert.strictEqual((yield* deliver(reworded)).status, 200)
          const burst = yield* Effect.forEach(Array.from({ length: 10 }), () => deliver(conflicting), {
            concurrency: "unbounded"
          })
          assert.isTrue(burst.every((answer) => answer.status === 200))
          assert.strictEqual(yield* countEvents(reference), 2)
          assert.strictEqual(yield* conflictCount("virtualaccount.credit"), before + 1)
          // A different conflict (another amount) is a row of its own.
          const other = credit({ reference, accountNumber, amount: "7000.00", fee: "0", settled: "7000.00" })
          assert.strictEqual((yield* deliver(other)).status, 200)
          assert.strictEqual(yield* countEvents(reference), 3)
          assert.strictEqual(yield* conflictCount("virtualaccount.credit"), before + 2)
          assert.strictEqual(ngn(yield* wallet(userId)), "1500.00")
        })
    )

    it.effect("50 concurrent identical deliveries credit once", () =>
      Effect.gen(function* () {
        const { userId, accountNumber } = yield* newAccount
        const payload = credit({ reference: unique("VA"), accountNumber, amount: "100.00", fee: "0", settled: 100 })
        const answers = yield* Effect.all(
          Array.from({ length: 50 }, () => deliver(payload)),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(
          answers.map((answer) => answer.status),
          Array(50).fill(200)
        )
        assert.strictEqual(ngn(yield* wallet(userId)), "100.00")
        assert.strictEqual(yield* countEvents(String(payload.data.reference)), 1)
      })
    )

    it.effect("bad, missing, truncated and other-secret signatures are 401 with nothing stored", () =>
      Effect.gen(function* () {
        const { userId, accountNumber } = yield* newAccount
        const payload = credit({ reference: unique("VA"), accountNumber })
        const body = JSON.stringify(payload)
        const good = hmac(CURRENT_SECRET, body)
        for (const signature of [
          null,
          "",
          "zz",
          good.slice(0, 63),
          good.slice(0, 32),
          hmac("another", body),
          `${good}00`
        ]) {
          const response = yield* deliver(body, signature)
          assert.strictEqual(response.status, 401, String(signature))
          assert.deepStrictEqual(response.json, { status: 401, message: "Invalid signature", data: null })
        }
        // Signed, then tampered with: the signature covers the exact bytes.
        assert.strictEqual((yield* deliver(body.replace("5000.75", "9000.75"), good)).status, 401)
        assert.strictEqual(yield* countEvents(String(payload.data.reference)), 0)
        assert.strictEqual(ngn(yield* wallet(userId)), "0.00")
      })
    )

    it.effect("uppercase hex and the previous (rotated) secret are accepted", () =>
      Effect.gen(function* () {
        const { userId, accountNumber } = yield* newAccount
        const upper = credit({ reference: unique("VA"), accountNumber })
        const upperBody = JSON.stringify(upper)
        assert.strictEqual((yield* deliver(upperBody, hmac(CURRENT_SECRET, upperBody).toUpperCase())).status, 200)
        const rotated = credit({ reference: unique("VA"), accountNumber })
        const rotatedBody = JSON.stringify(rotated)
        assert.strictEqual((yield* deliver(rotatedBody, hmac(PREVIOUS_SECRET, rotatedBody))).status, 200)
        assert.strictEqual(ngn(yield* wallet(userId)), "9901.00")
      })
    )

    it.effect("malformed JSON and schema violations with a valid signature are 400 and dead-lettered", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const before = yield* sql<{ count: string }>`SELECT count(*)::text AS count FROM webhook_dead_letters`
        const malformed = yield* deliver("{not json")
        assert.strictEqual(malformed.status, 400)
        assert.strictEqual(malformed.json.status, 400)
        assert.isNull(malformed.json.data)
        assert.deepStrictEqual(Object.keys(malformed.json), ["status", "message", "data", "errors"])
        const wrongType = credit({ reference: unique("VA"), accountNumber: "1234567890", data: { status: 42 } })
        const violation = yield* deliver(wrongType)
        assert.strictEqual(violation.status, 400)
        assert.isTrue(
          violation.json.errors.some((issue: { path: string }) => issue.path === "data.status"),
          JSON.stringify(violation.json.errors)
        )
        const twoFlags = credit({
          reference: unique("VA"),
          accountNumber: "1234567890",
          top: { transferSuccess: true }
        })
        assert.strictEqual((yield* deliver(twoFlags)).status, 400)
        const after = yield* sql<{ count: string }>`SELECT count(*)::text AS count FROM webhook_dead_letters`
        assert.strictEqual(Number(after[0]?.count) - Number(before[0]?.count), 3)
      })
    )

    it.effect("unknown accounts and broken rules are parked with 200, crediting nothing", () =>
      Effect.gen(function* () {
        const { userId, accountNumber } = yield* newAccount
        const sql = yield* SqlClient.SqlClient
        const cases: Array<[Json, string]> = [
          [credit({ reference: unique("VA"), accountNumber: "5550000000" }), "unmatched"],
          [credit({ reference: unique("VA"), accountNumber, amount: 0, fee: "0", settled: 0 }), "rejected"],
          [credit({ reference: unique("VA"), accountNumber, settled: 4950.49 }), "rejected"],
          [credit({ reference: unique("VA"), accountNumber, currency: "USD" }), "rejected"],
          [credit({ reference: unique("VA"), accountNumber, data: { status: "PENDING" } }), "rejected"],
          [credit({ reference: unique("VA"), accountNumber, data: { type: "DEBIT" } }), "rejected"],
          [credit({ reference: unique("VA"), accountNumber, fee: "-1", settled: 5001.75 }), "rejected"]
        ]
        for (const [payload, outcome] of cases) {
          assert.strictEqual((yield* deliver(payload)).status, 200)
          const rows = yield* sql<{ outcome: string; reason: string | null }>`
            SELECT outcome, reason FROM webhook_events WHERE reference = ${String((payload.data as Json).reference)}`
          assert.strictEqual(rows[0]?.outcome, outcome, JSON.stringify(payload.data))
          assert.isNotNull(rows[0]?.reason)
        }
        assert.strictEqual(ngn(yield* wallet(userId)), "0.00")
      })
    )

    it.effect("a transfer holds funds; success settles it, failure returns them; a short wallet is a 409", () =>
      Effect.gen(function* () {
        const { userId, accountNumber } = yield* newAccount
        yield* deliver(
          credit({ reference: unique("VA"), accountNumber, amount: "5000.00", fee: "0", settled: "5000.00" })
        )
        const token = yield* admin
        const record = (reference: string, amount: unknown) =>
          request("/v1/admin/transfers", {
            method: "POST",
            token,
            body: { reference, userId, amount, currency: "NGN" }
          })

        const paid = unique("TRF")
        const held = yield* record(paid, "2500.00")
        assert.strictEqual(held.status, 201)
        assert.strictEqual(held.json.data.status, "PENDING")
        assert.strictEqual((yield* record(paid, "2500.00")).status, 200)
        assert.strictEqual((yield* record(paid, "2600.00")).status, 409)
        assert.strictEqual(ngn(yield* wallet(userId)), "2500.00")
        assert.strictEqual(
          (yield* deliver(transferEvent({ outcome: "success", reference: paid, amount: "2500.00" }))).status,
          200
        )
        assert.strictEqual(ngn(yield* wallet(userId)), "2500.00")

        const failed = unique("TRF")
        assert.strictEqual((yield* record(failed, 1200)).status, 201)
        assert.strictEqual(ngn(yield* wallet(userId)), "1300.00")
        assert.strictEqual(
          (yield* deliver(transferEvent({ outcome: "failed", reference: failed, amount: 1200 }))).status,
          200
        )
        assert.strictEqual(ngn(yield* wallet(userId)), "2500.00")

        const tooMuch = yield* record(unique("TRF"), "2500.01")
        assert.strictEqual(tooMuch.status, 409)
        assert.strictEqual(ngn(yield* wallet(userId)), "2500.00")
      })
    )

    it.effect("linking is 201 new, 200 the same again, 409 for another user or currency; admin only", () =>
      Effect.gen(function* () {
        const { accountNumber, userId } = yield* newAccount
        assert.strictEqual((yield* link(accountNumber, userId)).status, 200)
        assert.strictEqual((yield* link(accountNumber, "someone-else")).status, 409)
        assert.strictEqual((yield* link(accountNumber, userId, "USD")).status, 409)
        const player = yield* tokenFor("player")
        const forbidden = yield* request(`/v1/admin/virtual-accounts/${accountNumber}`, {
          method: "PUT",
          token: player,
          body: { userId: "player", currency: "NGN" }
        })
        assert.strictEqual(forbidden.status, 403)
      })
    )

    it.effect("an oversized webhook body is 413 with the reduced envelope and nothing stored", () =>
      Effect.gen(function* () {
        const payload = credit({
          reference: unique("VA"),
          accountNumber: "1234567890",
          data: { narration: "x".repeat(300 * 1024) }
        })
        const response = yield* deliver(payload)
        assert.strictEqual(response.status, 413)
        assert.deepStrictEqual(Object.keys(response.json), ["status", "message", "data"])
        assert.strictEqual(yield* countEvents(String(payload.data.reference)), 0)
      })
    )
  })
})
