import { describe, layer } from "@effect/vitest"
import { BankingTesting } from "@payments-gaming/domain/testing"
import { bankingContract } from "../support/bankingContract.ts"

describe("BankingService on in-memory ports", () => {
  layer(BankingTesting.layerMemory, { excludeTestServices: true })((it) => bankingContract(it))
})
