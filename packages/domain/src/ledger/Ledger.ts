import { Context, type Effect, type Option } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { Money } from "../money/index.ts"
import type { Account } from "./Account.ts"
import type { InsufficientFunds } from "./Errors.ts"
import type { LedgerTransaction } from "./LedgerTransaction.ts"

export interface PostResult {
  /** The stored transaction: the one just posted, or the one already posted under the same key. */
  readonly transaction: LedgerTransaction
  /** False when the key had been posted before and nothing moved this time. */
  readonly created: boolean
}

export interface UserBalances {
  readonly userId: UserId
  readonly coins: bigint
  /** One entry per currency the user has ever held, sorted by currency code. */
  readonly cash: ReadonlyArray<Money.Money>
}

/** A broken ledger invariant found by `reconcile`; an empty list means the books are sound. */
export interface Discrepancy {
  readonly kind: "balance-mismatch" | "unbalanced-transaction" | "negative-user-balance"
  /** The account id or transaction key concerned. */
  readonly subject: string
  readonly detail: string
}

/**
 * The double-entry ledger. Every method runs inside the caller's unit of work when there is one
 * (`UnitOfWork.transaction`), so a posting commits or rolls back together with whatever caused it.
 * A posting with the record of its cause (a webhook credit, a spin's prize, a transfer's hold or
 * settlement) is written by `LedgerRecorder` instead, in one write with that record, under the
 * same rules.
 */
export class Ledger extends Context.Service<
  Ledger,
  {
    /**
     * Posts a balanced transaction once. The same key again returns the stored transaction and
     * posts nothing, whatever its postings are. Fails with `InsufficientFunds`, posting nothing,
     * when a user account would go below zero.
     */
    post(transaction: LedgerTransaction): Effect.Effect<PostResult, InsufficientFunds>
    find(key: string): Effect.Effect<Option.Option<LedgerTransaction>>
    balance(account: Account): Effect.Effect<Money.Money>
    balances(userId: UserId): Effect.Effect<UserBalances>
    /** Checks every maintained balance against the sum of its postings and every transaction's sums. */
    readonly reconcile: Effect.Effect<ReadonlyArray<Discrepancy>>
  }
>()("@payments-gaming/domain/ledger/Ledger") {}
