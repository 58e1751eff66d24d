// The domain's areas, each also importable on its own as `@payments-gaming/domain/<area>`.
export * as Auth from "./auth/index.ts"
export * as Banking from "./banking/index.ts"
export * as Cards from "./cards/index.ts"
export * as Ledger from "./ledger/index.ts"
export * as Money from "./money/index.ts"
export * as Push from "./push/index.ts"
export * as Trivia from "./trivia/index.ts"
export * as Wheel from "./wheel/index.ts"
