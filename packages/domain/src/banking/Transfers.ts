import type { BigDecimal } from "effect"
import { Context, type Effect, type Option } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { Cause } from "../ledger/LedgerRecorder.ts"
import type { Currency } from "../money/index.ts"
import type { Transfer } from "./Model.ts"

export interface NewTransfer {
  readonly reference: string
  readonly userId: UserId
  readonly currency: Currency
  readonly amount: BigDecimal.BigDecimal
}

/**
 * Outbound transfers initiated elsewhere, whose funds we hold until the provider settles or fails
 * them. A transfer's changes that move money are causes of their postings, written by the ledger
 * with them (`LedgerRecorder`): the store writes no posting itself.
 */
export class Transfers extends Context.Service<
  Transfers,
  {
    /**
     * A new transfer as the cause of its hold, for `LedgerRecorder.recordDebit(opened, hold)`: it
     * is inserted PENDING unless the reference is taken, and the hold posted only when it was. The
     * write answers the stored transfer either way, and whether it is new.
     */
    opened(transfer: NewTransfer): Cause<{ readonly created: boolean; readonly transfer: Transfer }>
    find(reference: string): Effect.Effect<Option.Option<Transfer>>
    /** As `find`, and holds the transfer against concurrent events until the unit of work ends. */
    findForUpdate(reference: string): Effect.Effect<Option.Option<Transfer>>
    /**
     * PENDING → SETTLED or FAILED, as the cause of the posting that settles or gives back its hold
     * (`LedgerRecorder.record`): posted only when the transfer moved. Answers none when the
     * transfer was not pending.
     */
    finished(reference: string, status: "SETTLED" | "FAILED", at: Date): Cause<Option.Option<Transfer>>
  }
>()("@payments-gaming/domain/banking/Transfers") {}
