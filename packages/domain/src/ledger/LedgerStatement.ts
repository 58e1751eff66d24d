import { Context, type Effect } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { Unit } from "../money/index.ts"
import type { StatementEntry } from "./Statement.ts"

/** Which postings of a user's accounts a statement page reads. */
export interface StatementEntriesQuery {
  /** Only the account of this unit; every account of the user when absent. */
  readonly unit?: Unit | undefined
  /** Posted at or after this instant. */
  readonly from?: Date | undefined
  /** Posted strictly before this instant. */
  readonly to?: Date | undefined
  /** Only postings numbered strictly below this id: the cursor of the page before. */
  readonly before?: bigint | undefined
  readonly limit: number
}

/**
 * Reads a user's postings for the statement: newest first (descending posting id), at most
 * `limit`, each with its account's balance just after it. One page is read as one consistent
 * snapshot of the ledger: the balance after an entry is the account's balance in that snapshot
 * less the account's postings numbered above the entry (all of them, whatever the filters).
 */
export class LedgerStatement extends Context.Service<
  LedgerStatement,
  {
    entries(userId: UserId, query: StatementEntriesQuery): Effect.Effect<ReadonlyArray<StatementEntry>>
  }
>()("@payments-gaming/domain/ledger/LedgerStatement") {}
