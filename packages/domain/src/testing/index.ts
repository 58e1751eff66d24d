// In-memory port layers for domain unit tests, here and in other services' tests.

export * as BankingTesting from "../banking/testing.ts"
export * as CardsTesting from "../cards/testing.ts"
export * as LedgerTesting from "../ledger/testing.ts"
export * as PushTesting from "../push/testing.ts"
export * as TriviaTesting from "../trivia/testing.ts"
export * as WheelTesting from "../wheel/testing.ts"
