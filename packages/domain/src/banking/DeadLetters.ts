import { Context, type Effect } from "effect"
import type { ListingPosition } from "./ListingCursor.ts"
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
    /** Newest first (received_at, then id, descending), strictly after `after`: a keyset page. */
    listPage(page: {
      readonly after?: ListingPosition | undefined
      readonly limit: number
    }): Effect.Effect<ReadonlyArray<DeadLetter>>
  }
>()("@payments-gaming/domain/banking/DeadLetters") {}
