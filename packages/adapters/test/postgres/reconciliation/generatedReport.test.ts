import { assert, describe, layer } from "@effect/vitest"
import { generateReport } from "@payments-gaming/adapters/test/support/ReconcileReport"
import { TestDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import { TEST_SECRETS } from "@payments-gaming/adapters/test/support/TestSecrets"
import * as Layers from "@payments-gaming/composition/Layers"
import { BankingService } from "@payments-gaming/domain/banking"
import { fundedUser, receive } from "@payments-gaming/domain/test/support/bankingContract"
import { transferEvent, unique } from "@payments-gaming/domain/test/support/fixtures"
import { creditOn, freshDay, importReport } from "@payments-gaming/domain/test/support/reconciliationContract"
import { BigDecimal, ConfigProvider, Effect, Layer } from "effect"

const Live = Layer.mergeAll(Layers.Reconciliation, Layers.Banking).pipe(
  Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(TEST_SECRETS))),
  Layer.provideMerge(Layers.Ledger),
  Layer.provideMerge(TestDatabase)
)

/** A day of traffic through the webhook: credits (some to no account), and settled transfers. */
const dayOfTraffic = (day: string) =>
  Effect.gen(function* () {
    const banking = yield* BankingService
    const { userId, accountNumber } = yield* fundedUser("100000.00")
    for (let n = 0; n < 60; n++) {
      const amount = `${100 + n}.${String(n % 100).padStart(2, "0")}`
      const to = n % 6 === 0 ? unique("nobody") : accountNumber
      yield* creditOn(day, { reference: unique("gen"), accountNumber: to, amount, fee: "0.50" })
    }
    for (let n = 0; n < 8; n++) {
      const reference = unique("out")
      const amount = BigDecimal.fromStringUnsafe(`${50 + n}.25`)
      yield* banking.recordTransfer({ reference, userId, amount, currency: "NGN" })
      yield* receive(
        transferEvent({ outcome: "success", reference, amount: `${50 + n}.25`, data: { date: `${day}T15:00:00Z` } })
      )
    }
  })

describe("a report generated from the database", () => {
  layer(Live, { timeout: "120 seconds", excludeTestServices: true })((it) => {
    it.effect("imports with exactly the breaks the generator put in it, of every kind", () =>
      Effect.gen(function* () {
        const day = freshDay()
        yield* dayOfTraffic(day)
        const chunks: Array<string> = []
        const expected = yield* generateReport({
          date: day,
          seed: 7,
          pageSize: 16,
          shares: { missingInReport: 0.15, amountMismatch: 0.15, statusMismatch: 0.6, missingInLedger: 0.1 },
          write: (chunk) => chunks.push(chunk)
        })
        for (const count of Object.values(expected.byKind)) assert.isAbove(count, 0)
        assert.isAbove(expected.matched, 0)
        const { reconciliation } = yield* importReport(day, new TextEncoder().encode(chunks.join("")))
        assert.deepStrictEqual(
          { lines: reconciliation.lines, matched: reconciliation.matched, byKind: reconciliation.breaks.byKind },
          expected
        )
      })
    )
  })
})
