import { Effect } from "effect"
import type { Ledger } from "../ledger/Ledger.ts"
import type { LedgerTransaction } from "../ledger/LedgerTransaction.ts"
import type { OutboxEvent } from "./Model.ts"
import type { NotificationOutbox } from "./NotificationOutbox.ts"

/**
 * A credit and the notification its user is sent when the transaction is new, as a use case
 * decides them (a deposit). Written with the record of its cause by `LedgerRecorder.record` (the
 * notification as the outbox's `notice`), or by `postNotified` for a cause stored already (a
 * replay). Only credits qualify: a posting that takes money from a user may be refused.
 */
export interface NotifiedPosting {
  readonly transaction: LedgerTransaction
  /** Enqueued only when `transaction` is new: a replayed posting has been announced already. */
  readonly notification: OutboxEvent | undefined
}

/**
 * Posts `posting` through `ledger` and, when its transaction is new, enqueues its notification
 * through `outbox` (none: announced nowhere). True when the transaction is new. The way to write a
 * `NotifiedPosting` whose cause is stored already (a replay of a stored event). Run it inside a
 * unit of work, so the two commit together. A credit cannot be refused, so a refusal
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
