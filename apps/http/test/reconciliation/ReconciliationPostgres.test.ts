import { assert, describe, layer } from "@effect/vitest"
import { TestDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import { TEST_SECRETS } from "@payments-gaming/adapters/test/support/TestSecrets"
import { reconciliationContract } from "@payments-gaming/domain/test/support/reconciliationContract"
import * as Layers from "@payments-gaming/http/Layers"
import { ConfigProvider, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/** Reconciliation and banking as the server wires them, on one ledger, every port reachable. */
const Live = Layer.mergeAll(Layers.Reconciliation, Layers.Banking).pipe(
  Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(TEST_SECRETS))),
  Layer.provideMerge(Layers.Ledger),
  Layer.provideMerge(TestDatabase)
)

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
})
