import { Cause, Context, Effect, Layer, Metric, Random } from "effect"
import { Devices } from "../devices/Devices.ts"
import type { DeviceId } from "../devices/Model.ts"
import { PushService } from "../push/PushService.ts"
import { decide, outcomeLabel, pushContextOf, pushMessageOf, undeliverable } from "./DeliveryRules.ts"
import type { AttemptFacts, AttemptOutcome, ClaimedNotification } from "./Model.ts"
import { NotificationOutbox } from "./NotificationOutbox.ts"
import { NotificationSettings } from "./NotificationSettings.ts"

/** Attempts by what they did: sent, retry, failed, token_deactivated, cancelled. */
export const notificationSends = Metric.counter("notification_sends_total", {
  description: "Notification outbox attempts by outcome (sent, retry, failed, token_deactivated, cancelled)",
  incremental: true
})
/**
 * Pushes sent while an earlier send of the same notification may have reached the provider (its
 * worker died or lost the database mid-send, or the provider did not answer in time). Each carries
 * the notification's id as its collapse key, so the device shows it once.
 */
export const notificationResends = Metric.counter("notification_resends_total", {
  description: "Notification pushes sent again while an earlier send may have reached the provider (same collapse key)",
  incremental: true
})
/** Rows waiting to be sent, due or not. */
export const outboxDepth = Metric.gauge("notification_outbox_depth", {
  description: "Notification outbox rows waiting to be sent"
})
/** How long the longest-waiting due row has waited, in seconds. */
export const outboxOldestDue = Metric.gauge("notification_outbox_oldest_due_seconds", {
  description: "Age of the oldest due notification outbox row, in seconds (0 when none is due)"
})

const NOT_PUSHED: AttemptFacts = { pushed: false, inDoubt: false }

/** One round of delivery: claim a batch of due rows, send each, record each attempt. */
export class NotificationDelivery extends Context.Service<
  NotificationDelivery,
  {
    /** Delivers one batch; returns how many rows it claimed (0: nothing was due). */
    readonly deliverDue: Effect.Effect<number>
    /** Refreshes the outbox gauges. */
    readonly observe: Effect.Effect<void>
  }
>()("@payments-gaming/domain/notifications/NotificationDelivery") {
  static readonly layer: Layer.Layer<
    NotificationDelivery,
    never,
    NotificationOutbox | PushService | Devices | NotificationSettings
  > = Layer.effect(
    NotificationDelivery,
    Effect.gen(function* () {
      const outbox = yield* NotificationOutbox
      const push = yield* PushService
      const devices = yield* Devices
      const settings = yield* NotificationSettings
      // Shown at 0 from the start, so a dashboard can tell "none" from "not reported".
      yield* Metric.update(notificationResends, 0)

      // What one attempt did: its outcome, and whether a push left and may have reached the provider
      // unanswered (a time-out: the provider may hold it all the same).
      const attempt = (
        notification: ClaimedNotification
      ): Effect.Effect<{ readonly outcome: AttemptOutcome; readonly facts: AttemptFacts }> => {
        const skipped = undeliverable(notification)
        if (skipped !== null || notification.device === null) {
          return Effect.succeed({
            outcome: skipped ?? { _tag: "Cancelled", reason: "device removed", attempted: false },
            facts: NOT_PUSHED
          })
        }
        const device = notification.device
        return push.send(pushMessageOf(notification, device), pushContextOf(notification)).pipe(
          Effect.flatMap((result) =>
            Effect.map(Random.next, (random) => ({
              outcome: decide(result, notification.attempts + 1, settings.backoff, random),
              facts: { pushed: true, inDoubt: result.errorCode === "TIMEOUT" }
            }))
          ),
          // The payload is over the provider's limit: no retry will shrink it.
          Effect.catchTag("PayloadTooLarge", (error) =>
            Effect.succeed({
              outcome: { _tag: "Failed", error: `PAYLOAD_TOO_LARGE: ${error.message}` } satisfies AttemptOutcome,
              facts: NOT_PUSHED
            })
          )
        )
      }

      // Sent, decided and recorded as one step that is not interrupted: a push that left is always
      // recorded, so a shutdown never makes the next instance send it again. The record itself
      // survives dropped connections (the outbox retries it, idempotent by claim); if it is lost all
      // the same, the row was marked as being sent and is not released: it stays sent-unconfirmed
      // until its lease ends, and the claim that takes it then sends it again as a resend, counted,
      // with the same collapse key.
      const deliverOne = Effect.fnUntraced(
        function* (notification: ClaimedNotification) {
          const { outcome, facts } = yield* attempt(notification)
          if (facts.pushed && notification.inDoubt) {
            yield* Metric.update(notificationResends, 1)
            yield* Effect.logWarning(
              "Notification sent again after a send that may have reached the provider (same collapse key)"
            ).pipe(Effect.annotateLogs({ notificationId: notification.id, attempt: notification.attempts + 1 }))
          }
          if (outcome._tag === "Cancelled" && outcome.attempted) {
            // The provider says the token is dead: the device goes, and with it its waiting rows.
            yield* devices.deactivate(notification.deviceId as DeviceId, outcome.reason).pipe(
              Effect.andThen(outbox.cancelForDevice(notification.deviceId, "device token deactivated")),
              // The attempt is recorded whatever happens to the device: it must not be sent again.
              Effect.catchCause((cause) =>
                Effect.logWarning("Dead device token not deactivated").pipe(
                  Effect.annotateLogs({ deviceId: notification.deviceId, cause: Cause.pretty(cause).split("\n")[0] })
                )
              )
            )
          }
          yield* outbox.record(notification, outcome, facts)
          yield* Metric.update(Metric.withAttributes(notificationSends, { outcome: outcomeLabel(outcome) }), 1)
          if (outcome._tag === "Failed") {
            yield* Effect.logWarning("Notification parked as failed").pipe(
              Effect.annotateLogs({ notificationId: notification.id, error: outcome.error })
            )
          }
        },
        (effect, notification) =>
          effect.pipe(
            Effect.catchCause((cause) =>
              Effect.logWarning(
                "Notification attempt not recorded; if its push left, it stays claimed until its lease expires, " +
                  "then is sent again as a possible duplicate with the same collapse key"
              ).pipe(
                Effect.annotateLogs({ notificationId: notification.id, cause: Cause.pretty(cause).split("\n")[0] })
              )
            ),
            Effect.uninterruptible
          )
      )

      // Marks the rows about to be sent; none is sent unless that is stored (a lost mark would let a
      // push that left be released as unsent). Rows that will not be sent need no mark.
      const markSending = (claimId: string, sendable: ReadonlyArray<ClaimedNotification>) =>
        sendable.length === 0
          ? Effect.succeed(true)
          : outbox
              .markSending(
                claimId,
                sendable.map((notification) => notification.id)
              )
              .pipe(
                Effect.as(true),
                Effect.catchCause((cause) =>
                  Effect.as(
                    Effect.logWarning("Notifications not marked as being sent; released unsent").pipe(
                      Effect.annotateLogs({ claimId, cause: Cause.pretty(cause).split("\n")[0] })
                    ),
                    false
                  )
                )
              )

      const deliverDue = Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const claimed = yield* restore(outbox.claimDue({ limit: settings.batchSize, lease: settings.lease }))
          const claimId = claimed[0]?.claimId
          if (claimId === undefined) return 0
          const sendable = claimed.filter((notification) => undeliverable(notification) === null)
          // Every send of the batch starts at once, so a shutdown waits for at most one send's time
          // (each is cut at 10 s); whatever was not recorded nor sent is released for the next instance.
          yield* markSending(claimId, sendable).pipe(
            Effect.flatMap((marked) =>
              Effect.forEach(
                marked ? claimed : claimed.filter((notification) => !sendable.includes(notification)),
                deliverOne,
                { concurrency: "unbounded", discard: true }
              )
            ),
            Effect.ensuring(Effect.ignoreCause(outbox.release(claimId)))
          )
          return claimed.length
        })
      )

      const observe = Effect.flatMap(outbox.stats, (stats) =>
        Effect.all([Metric.update(outboxDepth, stats.depth), Metric.update(outboxOldestDue, stats.oldestDueSeconds)], {
          discard: true
        })
      )

      return NotificationDelivery.of({ deliverDue, observe })
    })
  )
}
