import { Effect } from "effect"
import type { Ledger } from "../ledger/Ledger.ts"
import type { LedgerTransaction } from "../ledger/LedgerTransaction.ts"
import type { OutboxEvent } from "./Model.ts"
import type { NotificationOutbox } from "./NotificationOutbox.ts"

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

/**
 * Posts `posting` through `ledger` and, when its transaction is new, enqueues its notification
 * through `outbox` (none: announced nowhere). True when the transaction is new. The way to write a
 * `NotifiedPosting` without a store that does it in one statement: a replay, the memory stores.
 * Run it inside a unit of work, so the two commit together. A credit cannot be refused, so a refusal
 * is a defect.
 */
export const postNotified = (
  ledger: Ledger["Service"],
  outbox: NotificationOutbox["Service"] | undefined,
  { transaction, notification }: NotifiedPosting
): Effect.Effect<boolean> =>
  Effect.flatMap(Effect.orDie(ledger.post(transaction)), ({ created }) =>
    created && notification !== undefined && outbox !== undefined
      ? Effect.as(outbox.enqueue(notification), true)
      : Effect.succeed(created)
  )
