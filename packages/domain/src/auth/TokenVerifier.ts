import { Context, type Effect, type Redacted } from "effect"
import type { InvalidToken } from "./Errors.ts"
import type { Principal } from "./Model.ts"

/** Turns a presented bearer token into the caller it names, or refuses it. */
export class TokenVerifier extends Context.Service<
  TokenVerifier,
  {
    readonly verify: (token: Redacted.Redacted<string>) => Effect.Effect<Principal, InvalidToken>
  }
>()("@payments-gaming/domain/auth/TokenVerifier") {}
