import { assert, describe, it, layer } from "@effect/vitest"
import { TestDatabase as BankingDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import { TEST_SECRETS } from "@payments-gaming/adapters/test/support/TestSecrets"
import * as Layers from "@payments-gaming/composition/Layers"
import type { BankingContext } from "@payments-gaming/domain/test/support/bankingContract"
import { operations, runScenario } from "@payments-gaming/domain/test/support/bankingScenario"
import { BankingTesting } from "@payments-gaming/domain/testing"
import { ConfigProvider, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"

let run = 0

/** Runs the scenario for `numRuns` random operation lists, each against the ports `provide` gives. */
const property = (numRuns: number, provide: (run: Effect.Effect<void, never, BankingContext>) => Effect.Effect<void>) =>
  fc.assert(
    fc.asyncProperty(operations, (ops) =>
      Effect.runPromise(provide(runScenario(`p${Date.now().toString(36)}x${run++}`, ops)))
    ),
    { numRuns }
  )

/** The same invariants, asked of the tables directly rather than through the ledger's own check. */
const tablesBalance = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const unbalanced = yield* sql`SELECT transaction_id, unit FROM ledger_postings
    GROUP BY transaction_id, unit HAVING sum(amount_minor) <> 0`
  assert.deepStrictEqual(unbalanced, [])
  const drift = yield* sql`SELECT a.id FROM ledger_accounts a LEFT JOIN ledger_postings p ON p.account_id = a.id
    GROUP BY a.id, a.balance HAVING a.balance <> COALESCE(sum(p.amount_minor), 0)`
  assert.deepStrictEqual(drift, [])
  const negative = yield* sql`SELECT id FROM ledger_accounts WHERE owner_user_id IS NOT NULL AND balance < 0`
  assert.deepStrictEqual(negative, [])
  const single = yield* sql`SELECT transaction_id FROM ledger_postings GROUP BY transaction_id HAVING count(*) < 2`
  assert.deepStrictEqual(single, [])
}).pipe(Effect.orDie)

describe("ledger invariants under random banking traffic", () => {
  // A fresh in-memory database per run: cheap, so many runs.
  it(
    "hold in memory for 300 random sequences",
    () => property(300, (scenario) => Effect.provide(scenario, BankingTesting.layerMemory)),
    120_000
  )

  layer(
    Layers.Banking.pipe(
      // The statement's ids are keyed from CARD_FINGERPRINT_KEY (StatementIdCipher): the suite's secrets.
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(TEST_SECRETS))),
      Layer.provideMerge(Layers.Ledger),
      Layer.provideMerge(BankingDatabase)
    ),
    {
      timeout: "120 seconds",
      excludeTestServices: true
    }
  )("on PostgreSQL", (it) => {
    // One database for all runs, kept apart by their prefixes; the tables are checked after each.
    it.effect(
      "hold for 40 random sequences",
      () =>
        Effect.gen(function* () {
          const context = yield* Effect.context<BankingContext | SqlClient.SqlClient>()
          yield* Effect.promise(() =>
            property(40, (scenario) => Effect.provide(Effect.andThen(scenario, tablesBalance), context))
          )
        }),
      { timeout: 240_000 }
    )
  })
})
