import { Context, Effect, Layer, Option } from "effect"
import { NotificationNotFound } from "./Errors.ts"
import type { NotificationView, OutboxStatus, RetryableStatus, RetryResult } from "./Model.ts"
import { NotificationOutbox } from "./NotificationOutbox.ts"

/** What operators do with the outbox: look at it, and send parked notifications again. */
export class NotificationsService extends Context.Service<
  NotificationsService,
  {
    list(options: {
      readonly status?: OutboxStatus | undefined
      readonly limit: number
      readonly offset: number
    }): Effect.Effect<ReadonlyArray<NotificationView>>
    /**
     * Sends a `failed` row again: pending, due now, a fresh count of attempts (`retried: true`).
     * A row in any other status is left as it is (`retried: false`).
     */
    retry(id: string): Effect.Effect<RetryResult, NotificationNotFound>
    /** `retry` for every row in `status` now. */
    retryByStatus(status: RetryableStatus): Effect.Effect<ReadonlyArray<RetryResult>>
  }
>()("@payments-gaming/domain/notifications/NotificationsService") {
  static readonly layer: Layer.Layer<NotificationsService, never, NotificationOutbox> = Layer.effect(
    NotificationsService,
    Effect.gen(function* () {
      const outbox = yield* NotificationOutbox

      const list = Effect.fn("NotificationsService.list")(function* (options: {
        readonly status?: OutboxStatus | undefined
        readonly limit: number
        readonly offset: number
      }) {
        return yield* outbox.list(options)
      })

      const retry = Effect.fn("NotificationsService.retry")(function* (id: string) {
        const requeued = yield* outbox.requeue(id, "failed")
        if (Option.isSome(requeued)) return { id, retried: true, status: requeued.value.status } satisfies RetryResult
        const found = yield* outbox.find(id)
        if (Option.isNone(found)) return yield* new NotificationNotFound({ id, message: `no notification ${id}` })
        return { id, retried: false, status: found.value.status } satisfies RetryResult
      })

      const retryByStatus = Effect.fn("NotificationsService.retryByStatus")(function* (status: RetryableStatus) {
        const ids = yield* outbox.requeueAll(status)
        return ids.map((id): RetryResult => ({ id, retried: true, status: "pending" }))
      })

      return NotificationsService.of({ list, retry, retryByStatus })
    })
  )
}
