// In-memory port layers for domain unit tests, here and in other services' tests; the production
// barrels do not export them. One scheme throughout: `<Area>Testing.layerMemory` is the area's
// whole in-memory setup, `layerMemory<Port>` one port of it.

export * as BankingTesting from "../banking/testing.ts"
export * as CardsTesting from "../cards/testing.ts"
export * as DevicesTesting from "../devices/testing.ts"
export * as LedgerTesting from "../ledger/testing.ts"
export * as NotificationsTesting from "../notifications/testing.ts"
export * as PushTesting from "../push/testing.ts"
export * as ReconciliationTesting from "../reconciliation/testing.ts"
export * as TriviaTesting from "../trivia/testing.ts"
export * as WheelTesting from "../wheel/testing.ts"
