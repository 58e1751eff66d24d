import { describe, layer } from "@effect/vitest"
import { BankingMemory } from "@payments-gaming/domain/banking"
import { bankingContract } from "./bankingContract.ts"

describe("BankingService on in-memory ports", () => {
  layer(BankingMemory.layerMemory, { excludeTestServices: true })((it) => bankingContract(it))
})
