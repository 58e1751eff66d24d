import { assert, describe } from "@effect/vitest"
import { TEST_SECRETS } from "@payments-gaming/adapters/test/support/TestSecrets"
import * as Layers from "@payments-gaming/composition/Layers"
import { freshDay, importReport, report } from "@payments-gaming/domain/test/support/reconciliationContract"
import { ConfigProvider, Effect, Layer } from "effect"
import { request, withTestServer } from "../../support/TestServer.ts"

const openGauge = (text: string, kind: string) => {
  const found = new RegExp(`^reconciliation_breaks_open\\{[^}]*kind="${kind}"[^}]*\\} (\\d+)`, "m").exec(text)
  return found === null ? undefined : Number(found[1])
}

const line = (reference: string, day: string) =>
  `${reference},virtualaccount.credit,10.00,0,10.00,NGN,9900,${day}T10:00:00Z`

describe("reconciliation_breaks_open in /metrics", () => {
  withTestServer("60 seconds")((it) => {
    it.effect("is read from the database when the service starts, and again after an import", () =>
      Effect.gen(function* () {
        const atStart = (yield* request("/metrics")).text
        for (const kind of ["missing_in_ledger", "missing_in_report", "amount_mismatch", "status_mismatch"]) {
          assert.strictEqual(openGauge(atStart, kind), 0, kind)
        }
        // A second build of the service on the same database imports; the gauge holds the database's count.
        const day = freshDay()
        yield* importReport(day, report([line(`m1-${day}`, day), line(`m2-${day}`, day)])).pipe(
          Effect.provide(
            Layers.Reconciliation.pipe(
              Layer.provide(Layers.Ledger),
              Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(TEST_SECRETS)))
            )
          )
        )
        const after = (yield* request("/metrics")).text
        assert.strictEqual(openGauge(after, "missing_in_ledger"), 2)
        assert.strictEqual(openGauge(after, "amount_mismatch"), 0)
      })
    )
  })
})
