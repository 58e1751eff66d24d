import { Context, type Duration, type Effect, type Option } from "effect"
import type { Notice } from "../ledger/LedgerRecorder.ts"
import type {
  AttemptFacts,
  AttemptOutcome,
  ClaimedNotification,
  NotificationView,
  OutboxEvent,
  OutboxStats,
  OutboxStatus,
  RetryableStatus
} from "./Model.ts"

/**
 * Where notifications wait between the write that decided them and their delivery. Every method
 * runs inside the caller's unit of work when there is one; `enqueue` must: it is called from the
 * transaction that credits the money (a replay's), so the notification commits or rolls back with
 * it. A credit or a spin hands its notification to the ledger instead, as a `notice` written with
 * its posting (`LedgerRecorder.record`).
 */
export class NotificationOutbox extends Context.Service<
  NotificationOutbox,
  {
    /**
     * One row per active device of the user, keyed by (event, device): the same event again adds
     * nothing. A user with no active device gets no row. Returns the number of rows added.
     */
    enqueue(event: OutboxEvent): Effect.Effect<number>
    /**
     * `enqueue` of `event` as the ledger writes it with a posting, when the posting is new
     * (`LedgerRecorder.record`): nothing is written until then.
     */
    notice(event: OutboxEvent): Notice
    /**
     * Takes up to `limit` due rows no one else holds, each under a lease of `lease`, and returns
     * them with their device as it is now. Rows held by another claim are skipped, never waited
     * for; a row whose lease ran out (its worker died) is due again.
     */
    claimDue(options: {
      readonly limit: number
      readonly lease: Duration.Duration
    }): Effect.Effect<ReadonlyArray<ClaimedNotification>>
    /**
     * Marks rows of the claim as being sent, before their pushes leave: until their outcome is
     * recorded they are sent-unconfirmed, never released as unsent, and the claim that takes one
     * after its lease counts it as an attempt and the row as in doubt. Idempotent.
     */
    markSending(claimId: string, ids: ReadonlyArray<string>): Effect.Effect<void>
    /**
     * Stores what the attempt did and ends the claim; a row no longer held by `claimId` is left
     * alone, so recording twice changes nothing. A send while the row was in doubt counts as a
     * resend; a send whose answer is in doubt leaves the row in doubt.
     */
    record(notification: ClaimedNotification, outcome: AttemptOutcome, facts: AttemptFacts): Effect.Effect<void>
    /**
     * Gives back every row of the claim not yet recorded and not marked as being sent, due at once,
     * its attempts unchanged. A row whose push may have left waits out its lease.
     */
    release(claimId: string): Effect.Effect<void>
    /** Cancels the device's waiting rows (its token is dead); returns how many. */
    cancelForDevice(deviceId: string, reason: string): Effect.Effect<number>
    list(options: {
      readonly status?: OutboxStatus | undefined
      readonly limit: number
      readonly offset: number
    }): Effect.Effect<ReadonlyArray<NotificationView>>
    find(id: string): Effect.Effect<Option.Option<NotificationView>>
    /**
     * Makes a row in `status` pending again, due now, with a fresh count of attempts. None when
     * the row is in another status (or does not exist).
     */
    requeue(id: string, status: RetryableStatus): Effect.Effect<Option.Option<NotificationView>>
    /** `requeue` for every row in `status`; returns their ids. */
    requeueAll(status: RetryableStatus): Effect.Effect<ReadonlyArray<string>>
    readonly stats: Effect.Effect<OutboxStats>
  }
>()("@payments-gaming/domain/notifications/NotificationOutbox") {}
