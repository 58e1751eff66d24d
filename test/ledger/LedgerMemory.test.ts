import { describe, layer } from "@effect/vitest"
import { LedgerMemory } from "@payments-gaming/domain/ledger"
import { ledgerContract } from "./ledgerContract.ts"

describe("Ledger in memory", () => {
  layer(LedgerMemory.layerMemory)((it) => ledgerContract(it))
})
