import { assert, describe, it, layer } from "@effect/vitest"
import { statementsOf } from "@payments-gaming/adapters/test/support/StatementsOf"
import { TestDatabase as BankingDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import { TEST_SECRETS } from "@payments-gaming/adapters/test/support/TestSecrets"
import { twoProcesses } from "@payments-gaming/adapters/test/support/TwoProcesses"
import * as Layers from "@payments-gaming/composition/Layers"
import { BankingService } from "@payments-gaming/domain/banking"
import { Ledger } from "@payments-gaming/domain/ledger"
import {
  type BankingContext,
  bankingContract,
  cash,
  linkedUser,
  receive
} from "@payments-gaming/domain/test/support/bankingContract"
import { bytes, credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { ConfigProvider, type Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/** Banking as the server wires it, the ledger and every port reachable. */
// The statement's ids are keyed from CARD_FINGERPRINT_KEY (StatementIdCipher): the suite's secrets.
const OnLedger = Layers.Banking.pipe(
  Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(TEST_SECRETS))),
  Layer.provideMerge(Layers.Ledger)
)
const Live = OnLedger.pipe(Layer.provideMerge(BankingDatabase))

describe("BankingService on PostgreSQL", () => {
  layer(Live, { timeout: "120 seconds", excludeTestServices: true })((it) => {
    bankingContract(it)

    it.effect("a credit is one statement and no transaction: its event, its posting and its notification", () =>
      Effect.gen(function* () {
        const { accountNumber } = yield* linkedUser
        // The first credit reads the virtual account, which is then cached (VirtualAccountCache).
        yield* receive(credit({ reference: unique("VA"), accountNumber }))
        const { result, statements, transactions } = yield* statementsOf(
          receive(credit({ reference: unique("VA"), accountNumber }))
        )
        assert.strictEqual(result.outcome, "processed")
        assert.strictEqual(transactions, 0)
        assert.strictEqual(statements.length, 1, statements.join("\n"))
        // The ledger's statement around the inbox's INSERT, which comes first (it gates the posting).
        assert.match(statements[0]!, /^WITH event AS \(\s*INSERT INTO webhook_events /)
        for (const part of [
          "INSERT INTO ledger_transactions",
          "INSERT INTO ledger_postings",
          "INSERT INTO notification_outbox"
        ]) {
          assert.include(statements[0], part)
        }
      })
    )

    it.effect("never commits an event without its outcome, nor a processed credit without its posting", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const pending = yield* sql<{ n: bigint }>`SELECT count(*) AS n FROM webhook_events WHERE outcome = 'received'`
        assert.strictEqual(pending[0]!.n, 0n)
        const uncredited = yield* sql<{ key: string }>`
          SELECT e.dedup_key AS key FROM webhook_events e
          WHERE e.kind = 'virtualaccount.credit' AND e.outcome = 'processed'
          AND NOT EXISTS (SELECT 1 FROM ledger_transactions t WHERE t.idempotency_key = e.dedup_key)`
        assert.deepStrictEqual(uncredited, [])
        const credited = yield* sql<{ n: bigint }>`SELECT count(*) AS n FROM webhook_events WHERE outcome = 'processed'`
        assert.isAbove(Number(credited[0]!.n), 0)
      })
    )
  })

  // Two stacks with their own connection pools on one database are, to PostgreSQL, two server
  // processes: nothing in memory is shared, so only the database can stop a second credit.
  it.live(
    "50 concurrent deliveries split across two processes sharing one database credit once",
    () => Effect.flatMap(twoProcesses(OnLedger, Live), concurrentDeliveries),
    60_000
  )
})

type Process = Context.Context<BankingContext>

const concurrentDeliveries = (processes: readonly [Process, Process]) =>
  Effect.gen(function* () {
    const [first, second] = processes
    const user = yield* Effect.provide(linkedUser, first)
    const body = bytes(
      credit({ reference: unique("VA"), accountNumber: user.accountNumber, amount: "75.25", fee: "0.25", settled: 75 })
    )
    const results = yield* Effect.all(
      Array.from({ length: 50 }, (_, i) => Effect.provide(receive(body), i % 2 === 0 ? first : second)),
      { concurrency: "unbounded" }
    )
    assert.strictEqual(results.filter((result) => result.outcome === "processed").length, 1)
    assert.strictEqual(results.filter((result) => result.outcome === "duplicate").length, 49)
    for (const process of [first, second]) {
      assert.strictEqual(yield* Effect.provide(cash(user.userId), process), "75.00")
      const reconcile = yield* Effect.provide(
        Effect.flatMap(Effect.service(Ledger), (ledger) => ledger.reconcile),
        process
      )
      assert.deepStrictEqual(reconcile, [])
    }
    const service = yield* Effect.provide(Effect.service(BankingService), second)
    assert.deepStrictEqual(yield* service.wallet(user.userId), {
      coinBalance: 0,
      balances: [{ currency: "NGN", available: "75.00" }]
    })
  })
