import { Cause, Context, Effect, Layer, Metric, Random } from "effect"
import { Devices } from "../devices/Devices.ts"
import type { DeviceId } from "../devices/Model.ts"
import { PushService } from "../push/PushService.ts"
import { decide, outcomeLabel, pushMessageOf, undeliverable } from "./DeliveryRules.ts"
import type { AttemptOutcome, ClaimedNotification } from "./Model.ts"
import { NotificationOutbox } from "./NotificationOutbox.ts"
import { NotificationSettings } from "./NotificationSettings.ts"

/** Attempts by what they did: sent, retry, failed, token_deactivated, cancelled. */
export const notificationSends = Metric.counter("notification_sends_total", {
  description: "Notification outbox attempts by outcome (sent, retry, failed, token_deactivated, cancelled)",
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

      const attempt = (notification: ClaimedNotification): Effect.Effect<AttemptOutcome> => {
        const skipped = undeliverable(notification)
        if (skipped !== null || notification.device === null) {
          return Effect.succeed(skipped ?? { _tag: "Cancelled", reason: "device removed", attempted: false })
        }
        const device = notification.device
        return push.send(pushMessageOf(notification, device)).pipe(
          Effect.flatMap((result) =>
            Effect.map(Random.next, (random) => decide(result, notification.attempts + 1, settings.backoff, random))
          ),
          // The payload is over the provider's limit: no retry will shrink it.
          Effect.catchTag("PayloadTooLarge", (error) =>
            Effect.succeed<AttemptOutcome>({ _tag: "Failed", error: `PAYLOAD_TOO_LARGE: ${error.message}` })
          )
        )
      }

      // Sent, decided and recorded as one step that is not interrupted: a push that left is always
      // recorded, so a shutdown never makes the next instance send it again.
      const deliverOne = (notification: ClaimedNotification) =>
        Effect.gen(function* () {
          const outcome = yield* attempt(notification)
          if (outcome._tag === "Cancelled" && outcome.attempted) {
            // The provider says the token is dead: the device goes, and with it its waiting rows.
            yield* devices.deactivate(notification.deviceId as DeviceId, outcome.reason)
            yield* outbox.cancelForDevice(notification.deviceId, "device token deactivated")
          }
          yield* outbox.record(notification, outcome)
          yield* Metric.update(Metric.withAttributes(notificationSends, { outcome: outcomeLabel(outcome) }), 1)
          if (outcome._tag === "Failed") {
            yield* Effect.logWarning("Notification parked as failed").pipe(
              Effect.annotateLogs({ notificationId: notification.id, error: outcome.error })
            )
          }
        }).pipe(
          Effect.catchCause((cause) =>
            // The row stays claimed until its lease runs out, then it is due again.
            Effect.logWarning("Notification attempt not recorded; it is retried when its lease expires").pipe(
              Effect.annotateLogs({ notificationId: notification.id, cause: Cause.pretty(cause).split("\n")[0] })
            )
          ),
          Effect.uninterruptible
        )

      const deliverDue = Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const claimed = yield* restore(outbox.claimDue({ limit: settings.batchSize, lease: settings.lease }))
          if (claimed.length === 0) return 0
          // Every send of the batch starts at once, so a shutdown waits for at most one send's time
          // (each is cut at 10 s); whatever was not recorded is released for the next instance.
          yield* Effect.forEach(claimed, deliverOne, { concurrency: "unbounded", discard: true }).pipe(
            Effect.ensuring(Effect.ignoreCause(outbox.release(claimed[0]?.claimId ?? "")))
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
