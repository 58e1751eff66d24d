import { describe, layer } from "@effect/vitest"
import { ReconciliationTesting } from "@payments-gaming/domain/testing"
import { reconciliationContract } from "../support/reconciliationContract.ts"

// The TestClock: importedAt and resolvedAt come from the use case's clock, not the machine's.
describe("ReconciliationService on in-memory ports", () => {
  layer(ReconciliationTesting.layerMemory)((it) => reconciliationContract(it))
})
