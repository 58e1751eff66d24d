import { assert, describe } from "@effect/vitest"
import * as Layers from "@payments-gaming/composition/Layers"
import { BankingService, MAX_REFERENCE_LENGTH } from "@payments-gaming/domain/banking"
import { LedgerKeys } from "@payments-gaming/domain/ledger"
import { MAX_NUMBER_LENGTH } from "@payments-gaming/domain/money"
import { credit, type Json, transferEvent, unique } from "@payments-gaming/domain/test/support/fixtures"
import { ConfigProvider, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { deliverWebhook, request, TEST_ENV, tokenFor, withTestServer } from "../../support/TestServer.ts"

/**
 * Issue 14: every reference the decoder accepts works on every path (credit, transfer create,
 * transfer outcome, replay), one past the bound is a 400 (and a dead letter for a webhook), and no
 * numeric literal is too long or too large to be refused at once. Over real HTTP on PostgreSQL.
 */
const deliver = (payload: Json) => deliverWebhook(JSON.stringify(payload))

const admin = tokenFor("ops", ["admin"])
const recordTransfer = (body: Json) =>
  Effect.flatMap(admin, (token) => request("/v1/admin/transfers", { method: "POST", token, body }))
const ngn = (userId: string) =>
  Effect.gen(function* () {
    const response = yield* request("/v1/wallet", { token: yield* tokenFor(userId) })
    const balances: Array<{ currency: string; available: string }> = response.json.data.balances
    return balances.find((entry) => entry.currency === "NGN")?.available ?? "0.00"
  })

const newAccount = Effect.gen(function* () {
  const userId = unique("user")
  const accountNumber = String(Math.floor(1e9 + Math.random() * 8e9))
  const response = yield* Effect.flatMap(admin, (token) =>
    request(`/v1/admin/virtual-accounts/${accountNumber}`, { method: "PUT", token, body: { userId, currency: "NGN" } })
  )
  assert.strictEqual(response.status, 201)
  return { userId, accountNumber }
})

/** A unique reference of exactly `length` characters. */
const referenceOf = (length: number) => unique("R").padEnd(length, "r")

const eventOf = (reference: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ id: string; kind: string; outcome: string; reason: string | null }>`
      SELECT id::text, kind, outcome, reason FROM webhook_events WHERE reference = ${reference} ORDER BY kind`
  )
const ledgerKeys = (keys: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ key: string }>`SELECT idempotency_key AS key FROM ledger_transactions
      WHERE idempotency_key IN ${sql.in(keys)} ORDER BY idempotency_key`.pipe(
      Effect.map((rows) => rows.map((row) => row.key))
    )
  )
const deadLetters = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ n: string }>`SELECT count(*)::text AS n FROM webhook_dead_letters`.pipe(
    Effect.map((rows) => Number(rows[0]?.n))
  )
)
const transferCount = (reference: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: string }>`SELECT count(*)::text AS n FROM transfers WHERE reference = ${reference}`.pipe(
      Effect.map((rows) => Number(rows[0]?.n))
    )
  )

/** Replays a stored event as the CLI does: the banking service on the server's database. */
const replay = (eventId: string) =>
  BankingService.use((banking) => banking.replay(eventId)).pipe(
    Effect.provide(
      Layers.Banking.pipe(
        Layer.provide(Layers.Ledger),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(TEST_ENV)))
      )
    )
  )

/** A signed webhook past a bound: 400 with the issue named, dead-lettered, nothing stored. */
const refusedWebhook = (body: string, reference: string | undefined, expected: RegExp) =>
  Effect.gen(function* () {
    const before = yield* deadLetters
    const response = yield* deliverWebhook(body)
    assert.strictEqual(response.status, 400, response.text.slice(0, 300))
    assert.match(JSON.stringify(response.json.errors), expected)
    assert.strictEqual((yield* deadLetters) - before, 1)
    if (reference !== undefined) assert.deepStrictEqual(yield* eventOf(reference), [])
  })

describe("references and numbers at their bounds, over HTTP", () => {
  withTestServer("120 seconds")((it) => {
    it.effect("a credit of the longest reference is credited once; one character more is a dead letter", () =>
      Effect.gen(function* () {
        const { userId, accountNumber } = yield* newAccount
        const reference = referenceOf(MAX_REFERENCE_LENGTH)
        const payload = credit({ reference, accountNumber, amount: "100.00", fee: "0", settled: "100.00" })
        const first = yield* deliver(payload)
        assert.strictEqual(first.status, 200, first.text)
        assert.strictEqual((yield* deliver(payload)).status, 200)
        assert.strictEqual(yield* ngn(userId), "100.00")
        assert.deepStrictEqual(
          (yield* eventOf(reference)).map((event) => event.outcome),
          ["processed"]
        )
        assert.deepStrictEqual(yield* ledgerKeys([LedgerKeys.depositKey(reference)]), [
          LedgerKeys.depositKey(reference)
        ])

        const longer = referenceOf(MAX_REFERENCE_LENGTH + 1)
        const body = JSON.stringify(credit({ reference: longer, accountNumber, amount: "1.00", fee: "0", settled: 1 }))
        yield* refusedWebhook(body, longer, /data\.reference/)
        assert.strictEqual(yield* ngn(userId), "100.00")
      })
    )

    it.effect("a reference holding a lone surrogate is a dead letter, never a key that collides with another", () =>
      Effect.gen(function* () {
        const { userId, accountNumber } = yield* newAccount
        // Two references that differ only in their lone surrogate would both be stored as U+FFFD.
        for (const surrogate of ["\\ud800", "\\udfff"]) {
          const reference = `${unique("S")}-${surrogate}`
          const body = JSON.stringify(
            credit({ reference: "PLACEHOLDER", accountNumber, amount: "1.00", fee: "0", settled: 1 })
          ).replace("PLACEHOLDER", reference)
          yield* refusedWebhook(body, reference, /data\.reference/)
        }
        assert.strictEqual(yield* ngn(userId), "0.00")
      })
    )

    it.effect("a transfer of the longest reference is held, then returned or settled; one more is a 400", () =>
      Effect.gen(function* () {
        const { userId, accountNumber } = yield* newAccount
        yield* deliver(credit({ reference: unique("VA"), accountNumber, amount: "500.00", fee: "0", settled: 500 }))

        const failed = referenceOf(MAX_REFERENCE_LENGTH)
        const held = yield* recordTransfer({ reference: failed, userId, amount: "120.00", currency: "NGN" })
        assert.strictEqual(held.status, 201, held.text)
        assert.strictEqual(
          (yield* recordTransfer({ reference: failed, userId, amount: "120.00", currency: "NGN" })).status,
          200
        )
        assert.strictEqual(yield* ngn(userId), "380.00")
        const returned = yield* deliver(transferEvent({ outcome: "failed", reference: failed, amount: "120.00" }))
        assert.strictEqual(returned.status, 200, returned.text)
        assert.strictEqual(yield* ngn(userId), "500.00")

        const paid = referenceOf(MAX_REFERENCE_LENGTH)
        assert.strictEqual(
          (yield* recordTransfer({ reference: paid, userId, amount: 200, currency: "NGN" })).status,
          201
        )
        const settled = yield* deliver(transferEvent({ outcome: "success", reference: paid, amount: 200 }))
        assert.strictEqual(settled.status, 200, settled.text)
        assert.strictEqual(yield* ngn(userId), "300.00")
        assert.deepStrictEqual(
          [...(yield* eventOf(failed)), ...(yield* eventOf(paid))].map((event) => [event.kind, event.outcome]),
          [
            ["transfer.failed", "processed"],
            ["transfer.success", "processed"]
          ]
        )
        const keys = [
          LedgerKeys.holdKey(failed),
          LedgerKeys.returnKey(failed),
          LedgerKeys.holdKey(paid),
          LedgerKeys.settleKey(paid)
        ]
        assert.deepStrictEqual(yield* ledgerKeys(keys), [...keys].sort())

        const longer = referenceOf(MAX_REFERENCE_LENGTH + 1)
        const refused = yield* recordTransfer({ reference: longer, userId, amount: "1.00", currency: "NGN" })
        assert.strictEqual(refused.status, 400, refused.text)
        assert.strictEqual(yield* transferCount(longer), 0)
        assert.strictEqual(yield* ngn(userId), "300.00")
        const outcome = JSON.stringify(transferEvent({ outcome: "failed", reference: longer, amount: "1.00" }))
        yield* refusedWebhook(outcome, longer, /data\.reference/)
      })
    )

    it.effect("events of the longest reference parked as unmatched are applied on replay", () =>
      Effect.gen(function* () {
        const userId = unique("user")
        const accountNumber = String(Math.floor(1e9 + Math.random() * 8e9))
        const creditReference = referenceOf(MAX_REFERENCE_LENGTH)
        const early = credit({ reference: creditReference, accountNumber, amount: "90.00", fee: "0", settled: 90 })
        assert.strictEqual((yield* deliver(early)).status, 200)
        const [parked] = yield* eventOf(creditReference)
        assert.strictEqual(parked?.outcome, "unmatched")
        const linked = yield* Effect.flatMap(admin, (token) =>
          request(`/v1/admin/virtual-accounts/${accountNumber}`, {
            method: "PUT",
            token,
            body: { userId, currency: "NGN" }
          })
        )
        assert.strictEqual(linked.status, 201)
        const credited = yield* replay(parked!.id)
        assert.deepStrictEqual([credited.replayed, credited.outcome], [true, "processed"])
        assert.strictEqual(yield* ngn(userId), "90.00")

        // The provider reports a transfer before the admin records it: parked, then replayed.
        const transferReference = referenceOf(MAX_REFERENCE_LENGTH)
        const report = transferEvent({ outcome: "failed", reference: transferReference, amount: "40.00" })
        assert.strictEqual((yield* deliver(report)).status, 200)
        const [waiting] = yield* eventOf(transferReference)
        assert.strictEqual(waiting?.outcome, "unmatched")
        const held = yield* recordTransfer({ reference: transferReference, userId, amount: "40.00", currency: "NGN" })
        assert.strictEqual(held.status, 201, held.text)
        assert.strictEqual(yield* ngn(userId), "50.00")
        const returned = yield* replay(waiting!.id)
        assert.deepStrictEqual([returned.replayed, returned.outcome], [true, "processed"])
        assert.strictEqual(yield* ngn(userId), "90.00")
        assert.deepStrictEqual(yield* ledgerKeys([LedgerKeys.returnKey(transferReference)]), [
          LedgerKeys.returnKey(transferReference)
        ])
      })
    )

    it.effect("an amount past the length or exponent bound is a 400: a dead letter, or a refused transfer", () =>
      Effect.gen(function* () {
        const { userId, accountNumber } = yield* newAccount
        const withAmount = (reference: string, amount: string) =>
          JSON.stringify(
            credit({ reference, accountNumber, amount: "AMOUNT", fee: "0", settled: "AMOUNT" })
          ).replaceAll('"AMOUNT"', amount)
        // At the bounds the body reads, and its rules decide (an amount beyond any wallet is parked).
        const atLength = `1${"0".repeat(MAX_NUMBER_LENGTH - 4)}.00`
        for (const amount of [atLength, "1e64"]) {
          const reference = unique("VA")
          assert.strictEqual((yield* deliverWebhook(withAmount(reference, amount))).status, 200)
          assert.strictEqual((yield* eventOf(reference))[0]?.outcome, "rejected", amount)
        }
        for (const amount of [`${atLength}0`, "1".repeat(100_000), "1e65", "1e999999999", "-1E-999999999"]) {
          const reference = unique("VA")
          yield* refusedWebhook(withAmount(reference, amount), reference, /at most/)
        }
        for (const amount of ["1".repeat(100_000), `${"1".repeat(MAX_NUMBER_LENGTH - 3)}.00`]) {
          const reference = unique("TRF")
          const refused = yield* recordTransfer({ reference, userId, amount, currency: "NGN" })
          assert.strictEqual(refused.status, 400, refused.text.slice(0, 300))
          assert.strictEqual(yield* transferCount(reference), 0)
        }
        // The HTTP layer's JSON.parse reads these as Infinity: not a finite amount.
        const reference = unique("TRF")
        const body = `{"reference":"${reference}","userId":"${userId}","currency":"NGN","amount":1e999999999}`
        const infinite = yield* Effect.flatMap(admin, (token) =>
          request("/v1/admin/transfers", {
            method: "POST",
            token,
            rawBody: body,
            headers: { "content-type": "application/json" }
          })
        )
        assert.strictEqual(infinite.status, 400, infinite.text)
        assert.strictEqual(yield* transferCount(reference), 0)
        assert.strictEqual(yield* ngn(userId), "0.00")
      })
    )
  })
})
