import { Schema } from "effect"
import { Base64 } from "effect/encoding"
import { decodeUtf8 } from "../text/Utf8.ts"
import { ListingCursor } from "./ListingCursor.ts"
import { type DeadLetter, EventKind, Outcome, type WebhookEvent } from "./Model.ts"
import type { WebhookEventHeader } from "./WebhookInbox.ts"

const BodyEncoding = Schema.Literals(["utf8", "base64"]).annotate({
  description:
    "`utf8`: `body` is the stored bytes as text (they are valid UTF-8); `base64`: they are not, and `body` is their standard base64"
})

/** A stored body as an operator reads it: the exact bytes, as text when they are UTF-8. */
const StoredBody = {
  body: Schema.String.annotate({ description: "The exact bytes the provider sent, as `bodyEncoding` says" }),
  bodyEncoding: BodyEncoding
}

/** One stored webhook event in a listing; times are ISO 8601 UTC. */
export const WebhookEventSummary = Schema.Struct({
  id: Schema.String,
  kind: EventKind,
  reference: Schema.String,
  outcome: Outcome,
  reason: Schema.NullOr(Schema.String),
  receivedAt: Schema.String
})
export type WebhookEventSummary = typeof WebhookEventSummary.Type

/** One stored webhook event with when it was applied and the raw body it was stored with. */
export const WebhookEventDetail = Schema.Struct({
  ...WebhookEventSummary.fields,
  processedAt: Schema.NullOr(Schema.String),
  ...StoredBody
})
export type WebhookEventDetail = typeof WebhookEventDetail.Type

const nextCursor = Schema.NullOr(ListingCursor).annotate({
  description: "Pass as `cursor` for the next page; null on the last page"
})

/** A page of stored events, newest first. */
export const WebhookEventPage = Schema.Struct({ items: Schema.Array(WebhookEventSummary), nextCursor })
export type WebhookEventPage = typeof WebhookEventPage.Type

/** A signed delivery that could not be read, with why and its raw body. */
export const DeadLetterView = Schema.Struct({
  id: Schema.String,
  error: Schema.String,
  receivedAt: Schema.String,
  ...StoredBody
})
export type DeadLetterView = typeof DeadLetterView.Type

/** A page of dead letters, newest first. */
export const DeadLetterPage = Schema.Struct({ items: Schema.Array(DeadLetterView), nextCursor })
export type DeadLetterPage = typeof DeadLetterPage.Type

/**
 * Text when the bytes are valid UTF-8 (a webhook's always are; a leading BOM is kept, as sent), else
 * base64: never a lossy reading.
 */
export const storedBody = (bytes: Uint8Array): { body: string; bodyEncoding: "utf8" | "base64" } => {
  const text = decodeUtf8(bytes, { keepBom: true })
  return text === undefined
    ? { body: Base64.encode(bytes), bodyEncoding: "base64" }
    : { body: text, bodyEncoding: "utf8" }
}

export const toEventSummary = (event: WebhookEventHeader): WebhookEventSummary => ({
  id: event.id,
  kind: event.kind,
  reference: event.reference,
  outcome: event.outcome,
  reason: event.reason,
  receivedAt: event.receivedAt.toISOString()
})

export const toEventDetail = (event: WebhookEvent): WebhookEventDetail => ({
  ...toEventSummary(event),
  processedAt: event.processedAt === null ? null : event.processedAt.toISOString(),
  ...storedBody(event.rawBody)
})

export const toDeadLetterView = (letter: DeadLetter): DeadLetterView => ({
  id: letter.id,
  error: letter.error,
  receivedAt: letter.receivedAt.toISOString(),
  ...storedBody(letter.rawBody)
})
