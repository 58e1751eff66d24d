import type { BigDecimal } from "effect"
import { Context, type Effect, type Option } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { Currency } from "../money/index.ts"
import type { Transfer } from "./Model.ts"

export interface NewTransfer {
  readonly reference: string
  readonly userId: UserId
  readonly currency: Currency
  readonly amount: BigDecimal.BigDecimal
}

/** Outbound transfers initiated elsewhere, whose funds we hold until the provider settles or fails them. */
export class Transfers extends Context.Service<
  Transfers,
  {
    /** Inserts a PENDING transfer unless the reference is taken; either way returns the stored one. */
    insert(transfer: NewTransfer): Effect.Effect<{ readonly created: boolean; readonly transfer: Transfer }>
    find(reference: string): Effect.Effect<Option.Option<Transfer>>
    /** As `find`, and holds the transfer against concurrent events until the unit of work ends. */
    findForUpdate(reference: string): Effect.Effect<Option.Option<Transfer>>
    /** PENDING → SETTLED or FAILED. Returns none when the transfer was not pending. */
    finish(reference: string, status: "SETTLED" | "FAILED", at: Date): Effect.Effect<Option.Option<Transfer>>
  }
>()("@payments-gaming/domain/banking/Transfers") {}
