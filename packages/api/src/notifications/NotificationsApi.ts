import {
  NotificationId,
  NotificationView,
  OutboxStatus,
  RetryableStatus,
  RetryResult
} from "@payments-gaming/domain/notifications"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadRequest, NotFound } from "../ApiErrors.ts"
import { Envelope } from "../Envelope.ts"
import { Authentication } from "../middleware/Authentication.ts"
import { RequireAdmin } from "../middleware/RequireAdmin.ts"
import { PageQuery } from "../Paging.ts"

/** Body of `POST /v1/admin/notifications/retry`. */
export const RetryByStatusRequest = Schema.Struct({ status: RetryableStatus })

export class NotificationsApi extends HttpApiGroup.make("notifications")
  .add(
    HttpApiEndpoint.get("list", "/v1/admin/notifications", {
      query: { ...PageQuery, status: Schema.optionalKey(OutboxStatus) },
      success: Envelope(Schema.Array(NotificationView)),
      error: BadRequest
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Notification outbox rows, newest first, filtered by status (pending, sent, failed, cancelled)",
        description:
          "One row per (event, device): a credited deposit or spin prize and each active device of its user. " +
          "`id` is the `notificationId` the push carried, and its collapse key; device tokens are never shown. " +
          "`deliveries` lists every send with the provider's answer; `resends` counts sends made while an earlier " +
          "one may have reached the provider (the device shows them once). Paged with `limit` and `offset`."
      })
    ),
    HttpApiEndpoint.post("retry", "/v1/admin/notifications/:id/retry", {
      params: { id: NotificationId },
      success: Envelope(RetryResult),
      error: [BadRequest, NotFound]
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Send a failed notification again (404 unknown id)",
        description:
          "A `failed` row becomes pending, due now, with a fresh count of attempts (`retried: true`); a row in any " +
          "other status is left as it is (`retried: false`)."
      })
    ),
    HttpApiEndpoint.post("retryByStatus", "/v1/admin/notifications/retry", {
      payload: RetryByStatusRequest,
      success: Envelope(Schema.Array(RetryResult)),
      error: BadRequest
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Send every failed notification again",
        description: "One result per row that was in the status when the call was made."
      })
    )
  )
  .middleware(RequireAdmin)
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Notifications (administration)",
      description:
        "The credit notifications' outbox: what was sent, what failed, and sending failed ones again (role admin)"
    })
  ) {}
