import { assert, describe, it, layer } from "@effect/vitest"
import { TestDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import { TEST_SECRETS } from "@payments-gaming/adapters/test/support/TestSecrets"
import { twoProcesses } from "@payments-gaming/adapters/test/support/TwoProcesses"
import * as Layers from "@payments-gaming/composition/Layers"
import { cash, receive } from "@payments-gaming/domain/test/support/bankingContract"
import { fill } from "@payments-gaming/domain/test/support/devicesContract"
import { credit } from "@payments-gaming/domain/test/support/fixtures"
import {
  allBreaks,
  everyKind,
  importReport,
  reconciliationContract,
  resolve
} from "@payments-gaming/domain/test/support/reconciliationContract"
import { ConfigProvider, type Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/** Reconciliation and banking as the server wires them, on one ledger, every port reachable. */
const OnLedger = Layer.mergeAll(Layers.Reconciliation, Layers.Banking, Layers.Devices).pipe(
  Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(TEST_SECRETS))),
  Layer.provideMerge(Layers.Ledger)
)
const Live = OnLedger.pipe(Layer.provideMerge(TestDatabase))

type Process = Context.Context<Layer.Success<typeof OnLedger> | SqlClient.SqlClient>

/** One file imported by both processes at once, then one break credited by both at once. */
const raceAcrossProcesses = ([first, second]: readonly [Process, Process]) =>
  Effect.gen(function* () {
    const { day, bytes, userId } = yield* Effect.provide(everyKind, first)
    const imports = yield* Effect.all(
      [Effect.provide(importReport(day, bytes), first), Effect.provide(importReport(day, bytes), second)],
      { concurrency: 2 }
    )
    assert.strictEqual(imports[0].reconciliation.id, imports[1].reconciliation.id)
    assert.deepStrictEqual(imports.map((one) => one.created).sort(), [false, true])
    const id = imports[0].reconciliation.id
    assert.strictEqual((yield* Effect.provide(allBreaks(id), second)).length, 4)
    const [missing] = yield* Effect.provide(allBreaks(id, { kind: "missing_in_ledger" }), first)
    const outcomes = yield* Effect.all(
      [first, second].map((process) =>
        Effect.provide(resolve(id, missing!.id, "credit"), process).pipe(
          Effect.match({ onFailure: (error) => error._tag, onSuccess: () => "resolved" })
        )
      ),
      { concurrency: 2 }
    )
    assert.deepStrictEqual(outcomes.sort(), ["BreakAlreadyResolved", "resolved"])
    for (const process of [first, second]) assert.strictEqual(yield* Effect.provide(cash(userId), process), "281.00")
  })

describe("ReconciliationService on PostgreSQL", () => {
  layer(Live, { timeout: "120 seconds", excludeTestServices: true })((it) => {
    reconciliationContract(it)

    it.effect(
      "keeps a resolution's who, when and ledger transaction in the break's row, and no break without its reconciliation",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const orphans = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM reconciliation_breaks b
          WHERE NOT EXISTS (SELECT 1 FROM reconciliations r WHERE r.id = b.reconciliation_id)`
          assert.strictEqual(orphans[0]!.n, 0)
          const credited = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM reconciliation_breaks b
          WHERE b.resolution_action = 'credit'
          AND NOT EXISTS (SELECT 1 FROM ledger_transactions t WHERE t.idempotency_key = b.transaction_id)`
          assert.strictEqual(credited[0]!.n, 0)
          const counted = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM reconciliations r
          WHERE r.resolved <> (SELECT count(*) FROM reconciliation_breaks b
            WHERE b.reconciliation_id = r.id AND b.status = 'resolved')`
          assert.strictEqual(counted[0]!.n, 0)
        })
    )
  })

  layer(Live, { timeout: "120 seconds", excludeTestServices: true })((it) => {
    it.effect(
      "a credit resolve writes the deposit notification once per device, and the late webhook writes none",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const { day, bytes, userId, accountNumber, references } = yield* everyKind
          yield* fill(userId, 2)
          const { reconciliation } = yield* importReport(day, bytes)
          const [missing] = yield* allBreaks(reconciliation.id, { kind: "missing_in_ledger" })
          yield* resolve(reconciliation.id, missing!.id, "credit")
          const key = `virtualaccount.credit:${references.missing}`
          const rows = () =>
            sql<{ user_id: string; template_code: string }>`SELECT user_id, template_code FROM notification_outbox
            WHERE event_key = ${key}`
          const written = yield* rows()
          assert.strictEqual(written.length, 2)
          assert.deepStrictEqual([...new Set(written.map((row) => row.user_id))], [userId])
          const late = yield* receive(
            credit({ reference: references.missing, accountNumber, amount: "25.00", fee: "1.00", settled: "24.00" })
          )
          assert.strictEqual(late.reason, "already credited by reconciliation")
          assert.strictEqual((yield* rows()).length, 2)
        })
    )
  })

  // Two stacks with their own connection pools on one database are, to PostgreSQL, two server
  // processes: only the database can make their imports one and their credits one.
  it.live(
    "two processes sharing one database: one file imported by both at once is one reconciliation, and a break credited by both at once credits once",
    () => Effect.flatMap(twoProcesses(OnLedger, Live), raceAcrossProcesses),
    60_000
  )
})
