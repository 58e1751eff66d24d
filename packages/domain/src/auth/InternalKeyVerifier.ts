import { Context, type Effect, type Redacted } from "effect"
import type { NotAllowed } from "./Errors.ts"

/** Checks the shared key internal callers present (the `X-Internal-Key` header of the debug push). */
export class InternalKeyVerifier extends Context.Service<
  InternalKeyVerifier,
  {
    readonly verify: (presented: Redacted.Redacted<string> | undefined) => Effect.Effect<void, NotAllowed>
  }
>()("@payments-gaming/domain/auth/InternalKeyVerifier") {}
