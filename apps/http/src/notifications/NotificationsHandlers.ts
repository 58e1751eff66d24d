import { Api } from "@payments-gaming/api/Api"
import { notFound } from "@payments-gaming/api/ApiErrors"
import { pageOf } from "@payments-gaming/api/Paging"
import { NotificationsService } from "@payments-gaming/domain/notifications"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ok } from "../Respond.ts"

export const NotificationsHandlers = HttpApiBuilder.group(Api, "notifications", (handlers) =>
  Effect.gen(function* () {
    const notifications = yield* NotificationsService
    return handlers
      .handle("list", ({ query }) =>
        notifications
          .list({ status: query.status, ...pageOf(query) })
          .pipe(Effect.flatMap((rows) => ok("Notifications fetched", rows)))
      )
      .handle("retry", ({ params }) =>
        notifications.retry(params.id).pipe(
          Effect.catchTag("NotificationNotFound", (error) => Effect.fail(notFound(error.message))),
          Effect.flatMap((result) =>
            ok(result.retried ? "Notification queued again" : "Notification not retryable", result)
          )
        )
      )
      .handle("retryByStatus", ({ payload }) =>
        notifications
          .retryByStatus(payload.status)
          .pipe(
            Effect.flatMap((results) => ok(`Queued ${results.length} ${payload.status} notifications again`, results))
          )
      )
  })
)
