import { createHash } from "node:crypto"
import { assert, describe } from "@effect/vitest"
import { RECONCILIATIONS_PATH } from "@payments-gaming/api/Paths"
import { MAX_REPORT_BYTES } from "@payments-gaming/domain/reconciliation"
import { credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { creditLine, freshDay, HEADER, report } from "@payments-gaming/domain/test/support/reconciliationContract"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { deliverWebhook, request, type TestResponse, tokenFor, withTestServer } from "../../support/TestServer.ts"

/**
 * Settlement reconciliation over HTTP (CONTRACT §7): a real server on a real socket, on PostgreSQL.
 * Each test reconciles a settlement day of its own (freshDay), so its breaks are its own.
 */

const admin = (sub = "ops-recon") => tokenFor(sub, ["admin"])

const importCsv = (date: string | undefined, body: string | Uint8Array, contentType = "text/csv") =>
  Effect.flatMap(admin(), (token) =>
    request(date === undefined ? RECONCILIATIONS_PATH : `${RECONCILIATIONS_PATH}?date=${date}`, {
      method: "POST",
      token,
      rawBody: body,
      headers: { "content-type": contentType }
    })
  )

const get = (path: string) => Effect.flatMap(admin(), (token) => request(path, { token }))

const resolve = (id: string, breakId: string, body: unknown, sub = "ops-recon") =>
  Effect.flatMap(admin(sub), (token) =>
    request(`${RECONCILIATIONS_PATH}/${id}/breaks/${breakId}/resolve`, { method: "POST", token, body })
  )

const newAccount = Effect.gen(function* () {
  const userId = unique("recon-user")
  const accountNumber = String(Math.floor(1e9 + Math.random() * 8e9))
  const response = yield* Effect.flatMap(admin(), (token) =>
    request(`/v1/admin/virtual-accounts/${accountNumber}`, { method: "PUT", token, body: { userId, currency: "NGN" } })
  )
  assert.strictEqual(response.status, 201, response.text)
  return { userId, accountNumber }
})

const ngn = (userId: string) =>
  Effect.gen(function* () {
    const response = yield* request("/v1/wallet", { token: yield* tokenFor(userId) })
    const balances: Array<{ currency: string; available: string }> = response.json.data.balances
    return balances.find((entry) => entry.currency === "NGN")?.available ?? "0.00"
  })

/** A signed credit webhook dated on `day`. */
const deliverCredit = (day: string, o: { reference: string; accountNumber: string; amount: string }) =>
  deliverWebhook(
    JSON.stringify(
      credit({
        reference: o.reference,
        accountNumber: o.accountNumber,
        amount: o.amount,
        fee: "0",
        settled: o.amount,
        data: { date: `${day}T09:00:00.123456Z` }
      })
    )
  )

const storedReconciliations = (date: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: string }>`SELECT count(*)::text AS n FROM reconciliations WHERE settlement_date = ${date}`.pipe(
      Effect.map((rows) => Number(rows[0]?.n))
    )
  )

const openGauge = (text: string, kind: string) => {
  const found = new RegExp(`^reconciliation_breaks_open\\{[^}]*kind="${kind}"[^}]*\\} (\\d+)`, "m").exec(text)
  return found === null ? undefined : Number(found[1])
}

const noServerError = (label: string, response: TestResponse) =>
  assert.isBelow(response.status, 500, `${label}: ${response.status} ${response.text.slice(0, 300)}`)

describe("settlement reconciliation over HTTP", () => {
  withTestServer("120 seconds")((it) => {
    it.effect("an import answers 201 with its counts, the same bytes again 200 with the same reconciliation", () =>
      Effect.gen(function* () {
        const day = freshDay()
        const { accountNumber } = yield* newAccount
        const matched = unique("VA-match")
        const differs = unique("VA-differs")
        assert.strictEqual(
          (yield* deliverCredit(day, { reference: matched, accountNumber, amount: "100.00" })).status,
          200
        )
        assert.strictEqual(
          (yield* deliverCredit(day, { reference: differs, accountNumber, amount: "70.00" })).status,
          200
        )
        const bytes = report([
          creditLine({ reference: matched, accountNumber, amount: "100.0", day }),
          creditLine({ reference: differs, accountNumber, amount: "75.00", day }),
          creditLine({ reference: unique("VA-lost"), accountNumber, amount: "20.00", day })
        ])
        const first = yield* importCsv(day, bytes)
        assert.strictEqual(first.status, 201, first.text)
        assert.deepStrictEqual(Object.keys(first.json), ["timestamp", "status", "success", "message", "data"])
        const reconciliation = first.json.data
        assert.strictEqual(reconciliation.date, day)
        assert.strictEqual(reconciliation.sha256, createHash("sha256").update(bytes).digest("hex"))
        assert.strictEqual(reconciliation.lines, 3)
        assert.strictEqual(reconciliation.matched, 1)
        assert.deepStrictEqual(reconciliation.breaks, {
          open: 2,
          resolved: 0,
          byKind: { missing_in_ledger: 1, missing_in_report: 0, amount_mismatch: 1, status_mismatch: 0 }
        })

        // The same bytes for the same day: the first reconciliation, nothing new stored.
        const again = yield* importCsv(day, bytes, "text/csv; charset=utf-8")
        assert.strictEqual(again.status, 200, again.text)
        assert.strictEqual(again.json.data.id, reconciliation.id)
        assert.strictEqual(yield* storedReconciliations(day), 1)

        const one = yield* get(`${RECONCILIATIONS_PATH}/${reconciliation.id}`)
        assert.strictEqual(one.status, 200)
        assert.deepStrictEqual(one.json.data, reconciliation)
        const listed = yield* get(`${RECONCILIATIONS_PATH}?limit=200`)
        assert.strictEqual(listed.status, 200)
        assert.include(
          listed.json.data.items.map((item: { id: string }) => item.id),
          reconciliation.id
        )

        // Breaks in the report's order, filtered by kind; one page at a time through the cursor.
        const breaks = yield* get(`${RECONCILIATIONS_PATH}/${reconciliation.id}/breaks`)
        assert.strictEqual(breaks.status, 200)
        assert.deepStrictEqual(
          breaks.json.data.items.map((item: { kind: string; report: { line: number } }) => [
            item.kind,
            item.report.line
          ]),
          [
            ["amount_mismatch", 3],
            ["missing_in_ledger", 4]
          ]
        )
        const mismatch = breaks.json.data.items[0]
        assert.strictEqual(mismatch.ledger.amount, "70.00")
        assert.strictEqual(mismatch.report.amount, "75.00")
        const firstPage = yield* get(`${RECONCILIATIONS_PATH}/${reconciliation.id}/breaks?limit=1`)
        assert.strictEqual(firstPage.json.data.items.length, 1)
        assert.isString(firstPage.json.data.nextCursor)
        const secondPage = yield* get(
          `${RECONCILIATIONS_PATH}/${reconciliation.id}/breaks?limit=1&cursor=${firstPage.json.data.nextCursor}`
        )
        assert.deepStrictEqual(secondPage.json.data.items, [breaks.json.data.items[1]])
        assert.isNull(secondPage.json.data.nextCursor)
        const lost = yield* get(
          `${RECONCILIATIONS_PATH}/${reconciliation.id}/breaks?kind=missing_in_ledger&status=open`
        )
        assert.deepStrictEqual(lost.json.data.items, [breaks.json.data.items[1]])
        const resolved = yield* get(`${RECONCILIATIONS_PATH}/${reconciliation.id}/breaks?status=resolved`)
        assert.deepStrictEqual(resolved.json.data.items, [])

        // Unknown, malformed: 404 and 400, in the envelope.
        const unknown = yield* get(`${RECONCILIATIONS_PATH}/00000000-0000-4000-8000-000000000000`)
        assert.strictEqual(unknown.status, 404)
        assert.strictEqual(unknown.json.success, false)
        assert.strictEqual((yield* get(`${RECONCILIATIONS_PATH}/not-a-uuid`)).status, 400)
        assert.strictEqual((yield* get(`${RECONCILIATIONS_PATH}?cursor=junk`)).status, 400)
        assert.strictEqual((yield* get(`${RECONCILIATIONS_PATH}/${reconciliation.id}/breaks?kind=lost`)).status, 400)
        assert.strictEqual(
          (yield* get(`${RECONCILIATIONS_PATH}/00000000-0000-4000-8000-000000000000/breaks`)).status,
          404
        )
      })
    )

    it.effect("two imports of the same bytes at once make one reconciliation: one 201, one 200 with its id", () =>
      Effect.gen(function* () {
        const day = freshDay()
        const bytes = report(
          Array.from({ length: 50 }, () =>
            creditLine({ reference: unique("VA-twice"), accountNumber: "9900000005", amount: "1.00", day })
          )
        )
        const answers = yield* Effect.all([importCsv(day, bytes), importCsv(day, bytes)], { concurrency: 2 })
        assert.deepStrictEqual(answers.map((answer) => answer.status).sort(), [200, 201])
        assert.strictEqual(answers[0]?.json.data.id, answers[1]?.json.data.id)
        assert.strictEqual(yield* storedReconciliations(day), 1)
      })
    )

    it.effect(
      "a bad file is a 400 listing its lines and columns; a bad date 400; not text/csv 415; nothing stored",
      () =>
        Effect.gen(function* () {
          const day = freshDay()
          const reference = unique("VA-bad")
          const body = [
            HEADER,
            creditLine({ reference, accountNumber: "9900000001", amount: "10.00", day }),
            creditLine({ reference: unique("VA-bad"), accountNumber: "9900000001", amount: "ten", day }),
            creditLine({ reference, accountNumber: "9900000001", amount: "10.00", day })
          ].join("\n")
          const refused = yield* importCsv(day, body)
          assert.strictEqual(refused.status, 400, refused.text)
          assert.strictEqual(refused.json.success, false)
          assert.isNull(refused.json.data)
          const lines = (refused.json.errors as Array<{ line: number; column: string | null; message: string }>).map(
            (error) => [error.line, error.column]
          )
          assert.deepInclude(lines, [3, "amount"])
          assert.deepInclude(lines, [4, "reference"])
          assert.strictEqual(yield* storedReconciliations(day), 0)

          // At most 100 problems listed; the message gives the total.
          const garbage = [HEADER, ...Array.from({ length: 150 }, (_, i) => `R${i},nope,1,0,1,NGN,1,${day}T10:00:00Z`)]
          const many = yield* importCsv(day, garbage.join("\n"))
          assert.strictEqual(many.status, 400)
          assert.strictEqual(many.json.errors.length, 100)
          assert.match(many.json.message, /150/)

          const good = report([
            creditLine({ reference: unique("VA"), accountNumber: "9900000001", amount: "1.00", day })
          ])
          for (const date of [undefined, "2026-02-30", "26-01-01", ""]) {
            const answer = yield* importCsv(date, good)
            assert.strictEqual(answer.status, 400, `date ${date}: ${answer.text}`)
            assert.isArray(answer.json.errors)
          }
          for (const type of ["application/json", "text/plain", "multipart/form-data; boundary=x"]) {
            const answer = yield* importCsv(day, good, type)
            assert.strictEqual(answer.status, 415, `${type}: ${answer.text}`)
            assert.strictEqual(answer.json.message, "Content-Type must be text/csv")
          }
          assert.strictEqual(yield* storedReconciliations(day), 0)
        })
    )

    it.effect("a report over 256 KiB is read; one of 10 MiB + 1 byte is 413 and nothing is stored", () =>
      Effect.gen(function* () {
        const day = freshDay()
        const lines = Array.from({ length: 3000 }, () =>
          creditLine({ reference: unique("VA-big"), accountNumber: "9900000002", amount: "1.00", day })
        )
        const big = report(lines)
        assert.isAbove(big.length, 256 * 1024)
        const taken = yield* importCsv(day, big)
        assert.strictEqual(taken.status, 201, taken.text.slice(0, 300))
        assert.strictEqual(taken.json.data.breaks.byKind.missing_in_ledger, 3000)

        const other = freshDay()
        const tooBig = new Uint8Array(MAX_REPORT_BYTES + 1).fill(0x61)
        const refused = yield* importCsv(other, tooBig)
        assert.strictEqual(refused.status, 413)
        assert.strictEqual(refused.json.success, false)
        assert.match(refused.json.message, /10 MiB/)
        assert.strictEqual(yield* storedReconciliations(other), 0)
        // The JSON routes keep their 256 KiB limit.
        const json = yield* Effect.flatMap(admin(), (token) =>
          request("/v1/admin/transfers", {
            method: "POST",
            token,
            rawBody: JSON.stringify({ reference: "x".repeat(300 * 1024) }),
            headers: { "content-type": "application/json" }
          })
        )
        assert.strictEqual(json.status, 413)
      })
    )

    it.effect("hostile bodies (NUL, invalid UTF-8, quotes, an enormous field) are 400s, never 5xx", () =>
      Effect.gen(function* () {
        const day = freshDay()
        const line = creditLine({ reference: unique("VA-h"), accountNumber: "9900000003", amount: "1.00", day })
        const encoder = new TextEncoder()
        const hostile: Array<[string, Uint8Array | string]> = [
          ["NUL in a field", `${HEADER}\n${line.replace("VA-h", "VA\u0000h")}\n`],
          ["raw invalid UTF-8", new Uint8Array([...encoder.encode(`${HEADER}\n`), 0xff, 0xfe, 0x41, 0x0a])],
          ["lone surrogate bytes", new Uint8Array([...encoder.encode(`${HEADER}\nR`), 0xed, 0xa0, 0x80, 0x0a])],
          ["an unterminated quote", `${HEADER}\n"${line}\n`],
          ["a quote inside a bare field", `${HEADER}\nR"1,virtualaccount.credit,1,0,1,NGN,1,${day}T10:00:00Z\n`],
          [
            "an enormous field",
            `${HEADER}\n${"x".repeat(2 * 1024 * 1024)},virtualaccount.credit,1,0,1,NGN,1,${day}T10:00:00Z\n`
          ],
          ["an enormous quoted field", `${HEADER}\n"${"y".repeat(1024 * 1024)}`],
          ["no header", ""],
          ["a BOM alone", new Uint8Array([0xef, 0xbb, 0xbf])],
          ["binary", new Uint8Array(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))],
          ["a huge amount", `${HEADER}\nR1,virtualaccount.credit,${"9".repeat(5000)},0,1,NGN,1,${day}T10:00:00Z\n`],
          ["JSON", JSON.stringify({ reference: "R1" })]
        ]
        for (const [label, body] of hostile) {
          const answer = yield* importCsv(day, body)
          noServerError(label, answer)
          assert.strictEqual(answer.status, 400, `${label}: ${answer.text.slice(0, 300)}`)
          assert.isNotEmpty(answer.json.errors, label)
        }
        assert.strictEqual(yield* storedReconciliations(day), 0)
      })
    )

    it.effect("credit resolves a missed deposit; the webhook arriving late answers 200 and the wallet moves once", () =>
      Effect.gen(function* () {
        const day = freshDay()
        const { userId, accountNumber } = yield* newAccount
        const reference = unique("VA-missed")
        const imported = yield* importCsv(
          day,
          report([creditLine({ reference, accountNumber, amount: "250.00", fee: "10.00", settled: "240.00", day })])
        )
        assert.strictEqual(imported.status, 201, imported.text)
        const id: string = imported.json.data.id
        const [missed] = (yield* get(`${RECONCILIATIONS_PATH}/${id}/breaks`)).json.data.items
        assert.strictEqual(missed.kind, "missing_in_ledger")

        // Another kind of resolve, and a bad body, change nothing.
        assert.strictEqual((yield* resolve(id, missed.id, { action: "refund", note: "x" })).status, 400)
        assert.strictEqual((yield* resolve(id, missed.id, { action: "accept", note: "" })).status, 400)
        assert.strictEqual(
          (yield* resolve(id, "00000000-0000-4000-8000-000000000000", { action: "accept", note: "x" })).status,
          404
        )

        const credited = yield* resolve(id, missed.id, { action: "credit", note: "lost in the outage" }, "ops-ada")
        assert.strictEqual(credited.status, 200, credited.text)
        assert.strictEqual(credited.json.data.status, "resolved")
        assert.strictEqual(credited.json.data.resolution.action, "credit")
        assert.strictEqual(credited.json.data.resolution.resolvedBy, "ops-ada")
        assert.strictEqual(credited.json.data.resolution.note, "lost in the outage")
        assert.isString(credited.json.data.resolution.transactionId)
        assert.strictEqual(yield* ngn(userId), "240.00")

        const late = yield* deliverWebhook(
          JSON.stringify(
            credit({
              reference,
              accountNumber,
              amount: "250.00",
              fee: "10.00",
              settled: "240.00",
              data: { date: `${day}T09:00:00Z` }
            })
          )
        )
        assert.strictEqual(late.status, 200, late.text)
        assert.strictEqual(yield* ngn(userId), "240.00")

        const twice = yield* resolve(id, missed.id, { action: "credit", note: "again" })
        assert.strictEqual(twice.status, 409)
        assert.strictEqual(twice.json.success, false)
        assert.strictEqual(yield* ngn(userId), "240.00")
        const after = (yield* get(`${RECONCILIATIONS_PATH}/${id}`)).json.data
        assert.strictEqual(after.breaks.open, 0)
        assert.strictEqual(after.breaks.resolved, 1)
      })
    )

    it.effect("two credit resolves of one break at once credit once; a credit of another break kind is 409", () =>
      Effect.gen(function* () {
        const day = freshDay()
        const { userId, accountNumber } = yield* newAccount
        const reference = unique("VA-race")
        const received = unique("VA-received")
        assert.strictEqual(
          (yield* deliverCredit(day, { reference: received, accountNumber, amount: "5.00" })).status,
          200
        )
        const imported = yield* importCsv(
          day,
          report([
            creditLine({ reference, accountNumber, amount: "30.00", day }),
            creditLine({ reference: received, accountNumber, amount: "6.00", day })
          ])
        )
        assert.strictEqual(imported.status, 201, imported.text)
        const id: string = imported.json.data.id
        const [missed, mismatch] = (yield* get(`${RECONCILIATIONS_PATH}/${id}/breaks`)).json.data.items
        const answers = yield* Effect.all(
          [
            resolve(id, missed.id, { action: "credit", note: "first" }),
            resolve(id, missed.id, { action: "credit", note: "second" })
          ],
          { concurrency: 2 }
        )
        assert.deepStrictEqual(answers.map((answer) => answer.status).sort(), [200, 409])
        assert.strictEqual(yield* ngn(userId), "35.00")

        assert.strictEqual(mismatch.kind, "amount_mismatch")
        const refused = yield* resolve(id, mismatch.id, { action: "credit", note: "no" })
        assert.strictEqual(refused.status, 409)
        const accepted = yield* resolve(id, mismatch.id, { action: "accept", note: "provider fee, agreed" })
        assert.strictEqual(accepted.status, 200)
        assert.isNull(accepted.json.data.resolution.transactionId)
        assert.strictEqual(yield* ngn(userId), "35.00")
      })
    )

    it.effect("reconciliation_breaks_open in /metrics follows imports and resolves", () =>
      Effect.gen(function* () {
        const day = freshDay()
        const before = openGauge((yield* request("/metrics")).text, "missing_in_ledger") ?? 0
        const imported = yield* importCsv(
          day,
          report([
            creditLine({ reference: unique("VA-g"), accountNumber: "9900000004", amount: "1.00", day }),
            creditLine({ reference: unique("VA-g"), accountNumber: "9900000004", amount: "2.00", day })
          ])
        )
        assert.strictEqual(imported.status, 201)
        assert.strictEqual(openGauge((yield* request("/metrics")).text, "missing_in_ledger"), before + 2)
        const [first] = (yield* get(`${RECONCILIATIONS_PATH}/${imported.json.data.id}/breaks`)).json.data.items
        assert.strictEqual(
          (yield* resolve(imported.json.data.id, first.id, { action: "accept", note: "ok" })).status,
          200
        )
        assert.strictEqual(openGauge((yield* request("/metrics")).text, "missing_in_ledger"), before + 1)
      })
    )

    it.effect("every route needs an admin token: 401 without one, 403 for a user", () =>
      Effect.gen(function* () {
        const user = yield* tokenFor("recon-player")
        const day = freshDay()
        for (const [method, path] of [
          ["GET", RECONCILIATIONS_PATH],
          ["POST", `${RECONCILIATIONS_PATH}?date=${day}`],
          ["GET", `${RECONCILIATIONS_PATH}/00000000-0000-4000-8000-000000000000/breaks`]
        ] as const) {
          const body = method === "POST" ? { rawBody: `${HEADER}\n`, headers: { "content-type": "text/csv" } } : {}
          const anonymous = yield* request(path, { method, ...body })
          assert.strictEqual(anonymous.status, 401, `${method} ${path}`)
          const player = yield* request(path, { method, token: user, ...body })
          assert.strictEqual(player.status, 403, `${method} ${path}`)
        }
        assert.strictEqual(yield* storedReconciliations(day), 0)
      })
    )
  })
})
