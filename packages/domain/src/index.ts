// The domain's areas, each also importable on its own as `@payments-gaming/domain/<area>`.
export * as Auth from "./auth/index.ts"
export * as Push from "./push/index.ts"
export * as Trivia from "./trivia/index.ts"
