import { Context, type Effect } from "effect"
import type { InsufficientFunds } from "./Errors.ts"
import type { LedgerTransaction } from "./LedgerTransaction.ts"

declare const CauseTypes: unique symbol
declare const NoticeType: unique symbol

/**
 * The record of what caused a posting (a webhook's event, a spin, a transfer), as the store that
 * keeps that record hands it to the ledger, to be written together with the posting: made by that
 * store's port (`WebhookInbox.credit`, `SpinRepository.spun`, `Transfers.opened`, …) and written
 * only by `LedgerRecorder.record`. `A` is what the write answers (the stored event, what the spin's
 * write did), `E` how the store refuses the record (a second spin in a round). Opaque: what it
 * holds is the implementation's (SQL to run inside the ledger's statement, or an in-memory write),
 * and a recorder takes only the causes of its own implementation.
 */
export interface Cause<A, E = never> {
  /** Which implementation of the stores made it ("postgres", "memory"). */
  readonly implementation: string
  /** The types only: no cause holds a value here. */
  readonly [CauseTypes]?: { readonly answer: A; readonly refusal: E }
}

/**
 * What the ledger writes after a posting, and only when the posting is new: its user's
 * notification, made by the outbox (`NotificationOutbox.notice`), so a replayed posting is not
 * announced again. Opaque as `Cause` is.
 */
export interface Notice {
  readonly implementation: string
  readonly [NoticeType]?: never
}

/** A posting to write with its cause, and the notice to write when it is new. */
export interface CausedPosting {
  readonly transaction: LedgerTransaction
  readonly notice?: Notice | undefined
}

/**
 * The one way postings are written together with the record of what caused them: the cause, then
 * its posting only when the cause's record is new (a duplicate event, a refused or stale spin posts
 * nothing), then the posting's notice only when the posting is new (the ledger held its key
 * already: nothing announced again). Atomic on its own, or part of the caller's unit of work; on
 * PostgreSQL `record` is one statement, so one round trip with no transaction of its own (issue
 * 16). The stores of the causes write no ledger row themselves.
 *
 * While it writes the cause, the ledger tells it what the cause's answer may need: whether the
 * ledger held the posting's key before the write (a deposit credited before its event was stored),
 * whether the posting was written, and a user account's balance after it (the coins a spin answers
 * with). See each cause's constructor for what it answers.
 */
export class LedgerRecorder extends Context.Service<
  LedgerRecorder,
  {
    /**
     * Writes `cause` and, when its record is new, `posting`: only credits (a deposit, a prize, a
     * transfer settled or given back), which nothing can refuse; a posting that takes from a user
     * is a defect here (`recordDebit`). Without a posting (a prize of 0) the cause alone. Fails only
     * with the cause's own refusal, writing nothing.
     */
    record<A, E>(cause: Cause<A, E>, posting?: CausedPosting | undefined): Effect.Effect<A, E>
    /**
     * As `record`, for a posting that takes from a user (a transfer's hold): `InsufficientFunds`,
     * writing nothing, cause included, when a user account would go below zero. Not one statement
     * (the balance checks follow it), so it runs in a transaction of its own, or a savepoint of the
     * caller's.
     */
    recordDebit<A, E>(cause: Cause<A, E>, transaction: LedgerTransaction): Effect.Effect<A, E | InsufficientFunds>
  }
>()("@payments-gaming/domain/ledger/LedgerRecorder") {}
