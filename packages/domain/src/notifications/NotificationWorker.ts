import { Cause, Effect, Layer, Ref } from "effect"
import { NotificationDelivery } from "./NotificationDelivery.ts"
import { NotificationSettings } from "./NotificationSettings.ts"

/**
 * The delivery loop every instance runs for as long as its scope: deliver a batch, and pause for
 * `pollInterval` only when the batch was not full (a backlog is drained without pauses). Any number
 * of instances may run it on one database: claims keep them apart. Closing the scope interrupts
 * the loop between batches or waits for the batch in hand (its sends are cut at 10 s), whose
 * unrecorded rows are released.
 *
 * A failing round (the database is down) is logged once as a warning, and once more when delivery
 * works again, rather than at every poll of an outage.
 */
export const layer: Layer.Layer<never, never, NotificationDelivery | NotificationSettings> = Layer.effectDiscard(
  Effect.gen(function* () {
    const settings = yield* NotificationSettings
    if (!settings.workerEnabled) {
      yield* Effect.logInfo("Notification worker off (NOTIFICATIONS_WORKER)")
      return
    }
    const delivery = yield* NotificationDelivery
    const failing = yield* Ref.make(false)

    const round = delivery.deliverDue.pipe(
      Effect.tap(() =>
        Effect.flatMap(Ref.getAndSet(failing, false), (was) =>
          was ? Effect.logInfo("Notification delivery works again") : Effect.void
        )
      ),
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.flatMap(Ref.getAndSet(failing, true), (was) =>
              was
                ? Effect.succeed(0)
                : Effect.as(
                    Effect.logWarning("Notification delivery failed; retrying at every poll").pipe(
                      Effect.annotateLogs({ cause: Cause.pretty(cause).split("\n")[0] })
                    ),
                    0
                  )
            )
      ),
      Effect.tap(() => Effect.ignoreCause(delivery.observe))
    )

    const loop = Effect.forever(
      Effect.flatMap(round, (claimed) =>
        claimed < settings.batchSize ? Effect.sleep(settings.pollInterval) : Effect.void
      )
    )
    yield* Effect.forkScoped(loop)
    yield* Effect.logDebug("Notification worker started").pipe(
      Effect.annotateLogs({ batchSize: settings.batchSize, maxAttempts: settings.backoff.maxAttempts })
    )
  })
)
