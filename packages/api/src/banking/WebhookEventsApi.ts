import {
  DeadLetterPage,
  EventKind,
  ListingCursor,
  Outcome,
  Reference,
  ReplayableOutcome,
  ReplayResult,
  StoredId,
  WebhookEventDetail,
  WebhookEventPage
} from "@payments-gaming/domain/banking"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadRequest, NotFound } from "../ApiErrors.ts"
import { Envelope } from "../Envelope.ts"
import { Authentication } from "../middleware/Authentication.ts"
import { RequireAdmin } from "../middleware/RequireAdmin.ts"
import { PageQuery } from "../Paging.ts"

/** `limit` 1 to 200 (default 50) and the opaque `cursor` a previous page gave as `nextCursor`; never an offset. */
const CursorQuery = { limit: PageQuery.limit, cursor: Schema.optionalKey(ListingCursor) }

const eventId = { id: StoredId }

/** Body of `POST /v1/admin/webhook-events/replay`. */
export const ReplayByOutcomeRequest = Schema.Struct({ outcome: ReplayableOutcome })

const paging =
  "Newest first (by receivedAt, then id). Pass the page's `nextCursor` back as `cursor` for the next page; it is " +
  "null on the last page. A cursor is a position, not an offset: rows that arrive while paging do not shift pages."

const bodies =
  '`body` is the exact stored bytes: as text when they are valid UTF-8 (`bodyEncoding: "utf8"`, always so for a ' +
  'stored event), else standard base64 (`bodyEncoding: "base64"`).'

export class WebhookEventsApi extends HttpApiGroup.make("webhookEvents")
  .add(
    HttpApiEndpoint.get("list", "/v1/admin/webhook-events", {
      query: {
        ...CursorQuery,
        status: Schema.optionalKey(Outcome),
        kind: Schema.optionalKey(EventKind),
        reference: Schema.optionalKey(Reference)
      },
      success: Envelope(WebhookEventPage),
      error: BadRequest
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Stored webhook events, newest first, filtered by outcome (`status`), kind and reference",
        description: `${paging} \`reference\` is the event's \`data.reference\`: its event, and any conflicting redeliveries of it. A bad cursor, status, kind, reference or limit is a 400 listing the problems.`
      })
    ),
    HttpApiEndpoint.get("detail", "/v1/admin/webhook-events/:id", {
      params: eventId,
      success: Envelope(WebhookEventDetail),
      error: [BadRequest, NotFound]
    }).annotateMerge(
      OpenApi.annotations({
        summary: "One stored webhook event with its raw body (404 unknown id, 400 an id that is not a UUID)",
        description: bodies
      })
    ),
    HttpApiEndpoint.post("replay", "/v1/admin/webhook-events/:id/replay", {
      params: eventId,
      success: Envelope(ReplayResult),
      error: [BadRequest, NotFound]
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Run one stored event again after fixing its cause (404 unknown id)",
        description:
          "Only `unmatched` and `rejected` events are applied again (`replayed: true`); any other event is left as " +
          "it is and reported with `replayed: false`. Nothing is ever credited twice."
      })
    ),
    HttpApiEndpoint.post("replayByOutcome", "/v1/admin/webhook-events/replay", {
      payload: ReplayByOutcomeRequest,
      success: Envelope(Schema.Array(ReplayResult)),
      error: BadRequest
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Run again every stored event with outcome `unmatched` or `rejected`",
        description: "One result per event found in that outcome when the call started. Nothing is ever credited twice."
      })
    ),
    HttpApiEndpoint.get("deadLetters", "/v1/admin/dead-letters", {
      query: CursorQuery,
      success: Envelope(DeadLetterPage),
      error: BadRequest
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Signed webhook deliveries that could not be read, newest first, with why and their raw body",
        description: `${paging} ${bodies}`
      })
    )
  )
  .middleware(RequireAdmin)
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Webhook events (administration)",
      description: "Stored webhook events and dead letters, and replaying unmatched or rejected events (role admin)"
    })
  ) {}
