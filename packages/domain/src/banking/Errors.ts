import { Schema } from "effect"
import { WebhookIssue } from "./Model.ts"

/** The body is not JSON, breaks the payload schema, or sets more than one event flag. Dead-lettered. */
export class MalformedWebhook extends Schema.TaggedError<MalformedWebhook>()("MalformedWebhook", {
  message: Schema.String,
  issues: Schema.Array(WebhookIssue),
  deadLetterId: Schema.String
}) {}

/** `X-Provider-Signature` is missing or matches none of the configured secrets. */
export class InvalidSignature extends Schema.TaggedError<InvalidSignature>()("InvalidSignature", {
  message: Schema.String
}) {}

export class WebhookEventNotFound extends Schema.TaggedError<WebhookEventNotFound>()("WebhookEventNotFound", {
  eventId: Schema.String,
  message: Schema.String
}) {}

/** The account number is already linked to another user or in another currency. */
export class VirtualAccountConflict extends Schema.TaggedError<VirtualAccountConflict>()("VirtualAccountConflict", {
  accountNumber: Schema.String,
  message: Schema.String
}) {}

/** The transfer reference is already recorded with other details. */
export class TransferConflict extends Schema.TaggedError<TransferConflict>()("TransferConflict", {
  reference: Schema.String,
  message: Schema.String
}) {}

/** An amount that decodes but cannot be used: not positive, or too precise for its currency. */
export class InvalidAmount extends Schema.TaggedError<InvalidAmount>()("InvalidAmount", {
  message: Schema.String
}) {}
