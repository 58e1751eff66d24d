export * from "./Errors.ts"
export * from "./InternalKeyVerifier.ts"
export * from "./Model.ts"
export * from "./TokenVerifier.ts"
