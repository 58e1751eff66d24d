import { assert, describe, it } from "@effect/vitest"
import { ReconciliationTesting } from "@payments-gaming/domain/testing"
import { Effect, Layer, Logger, References } from "effect"
import { everyKind, importReport } from "../support/reconciliationContract.ts"

interface Line {
  readonly message: unknown
  readonly level: string
  readonly annotations: Record<string, unknown>
}

describe("an import's log", () => {
  it.effect("is one line with the reconciliation's counts, and one line for the same file again", () => {
    const lines: Array<Line> = []
    const capture = Logger.make<unknown, void>(({ message, logLevel, fiber }) => {
      lines.push({ message, level: logLevel, annotations: { ...fiber.getRef(References.CurrentLogAnnotations) } })
    })
    return Effect.gen(function* () {
      const { day, bytes } = yield* everyKind
      lines.length = 0
      const { reconciliation } = yield* importReport(day, bytes)
      assert.strictEqual(lines.length, 1)
      assert.deepStrictEqual(lines[0]?.message, ["reconciliation imported"])
      assert.deepStrictEqual(lines[0]?.annotations, {
        reconciliationId: reconciliation.id,
        date: day,
        created: true,
        lines: 4,
        matched: 1,
        missing_in_ledger: 1,
        missing_in_report: 1,
        amount_mismatch: 1,
        status_mismatch: 1
      })
      yield* importReport(day, bytes)
      assert.strictEqual(lines.length, 2)
      assert.deepStrictEqual(lines[1]?.message, ["reconciliation imported again"])
    }).pipe(Effect.provide(ReconciliationTesting.layerMemory.pipe(Layer.provideMerge(Logger.layer([capture])))))
  })

  it.effect("refuses a report larger than 10 MiB without reading it", () =>
    Effect.gen(function* () {
      const refused = yield* Effect.flip(importReport("2026-01-01", new Uint8Array(10 * 1024 * 1024 + 1)))
      assert.strictEqual(refused._tag, "InvalidReport")
      assert.deepStrictEqual(refused.errors, [
        { line: 1, column: null, message: "a report may have at most 10485760 bytes" }
      ])
    }).pipe(Effect.provide(ReconciliationTesting.layerMemory))
  )
})
