import type { LedgerTransaction } from "../ledger/LedgerTransaction.ts"
import type { OutboxEvent } from "./Model.ts"

/**
 * A ledger transaction that commits with the record of what caused it (a webhook event, a spin),
 * and the notification its user is sent when the transaction is new. A store that takes one writes
 * the record, the posting and the notification atomically, and posts nothing when the record was
 * there already; on PostgreSQL that is one statement, which needs no transaction of its own
 * (issue 16). Only credits qualify: a posting that takes money from a user may be refused, and a
 * store treats one as a defect.
 */
export interface NotifiedPosting {
  readonly transaction: LedgerTransaction
  /** Enqueued only when `transaction` is new: a replayed posting has been announced already. */
  readonly notification: OutboxEvent | undefined
}
