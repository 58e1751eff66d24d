import { describe, layer } from "@effect/vitest"
import { LedgerTesting } from "@payments-gaming/domain/testing"
import { ledgerContract } from "../support/ledgerContract.ts"

describe("Ledger in memory", () => {
  layer(LedgerTesting.layerMemory)((it) => ledgerContract(it))
})
