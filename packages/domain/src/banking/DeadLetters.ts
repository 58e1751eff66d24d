import { Context, type Effect } from "effect"
import type { DeadLetter } from "./Model.ts"

/** Signed deliveries that could not be read (bad JSON, schema violations), kept for inspection. */
export class DeadLetters extends Context.Service<
  DeadLetters,
  {
    add(letter: {
      readonly rawBody: Uint8Array
      readonly signature: string
      readonly receivedAt: Date
      readonly error: string
    }): Effect.Effect<DeadLetter>
    /** Newest first. */
    list(page: { readonly limit: number; readonly offset: number }): Effect.Effect<ReadonlyArray<DeadLetter>>
  }
>()("@payments-gaming/domain/banking/DeadLetters") {}
