import { describe, layer } from "@effect/vitest"
import { LedgerTesting } from "@payments-gaming/domain/testing"
import { Layer } from "effect"
import { TestClock } from "effect/testing"
import { statementContract } from "../support/statementContract.ts"

describe("the wallet statement in memory", () => {
  layer(LedgerTesting.layerMemoryStatement.pipe(Layer.provideMerge(LedgerTesting.layerMemory)))((it) =>
    statementContract(it, TestClock.adjust("1 second"))
  )
})
