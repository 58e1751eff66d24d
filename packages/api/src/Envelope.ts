import { Schema } from "effect"

/** One entry of a validation failure: where, and what is wrong there. */
export const FieldIssue = Schema.Struct({ path: Schema.String, message: Schema.String })
export type FieldIssue = typeof FieldIssue.Type

/** The success envelope of CONTRACT §2, keys in this order. */
export const Envelope = <Data extends Schema.Top>(data: Data) =>
  Schema.Struct({
    timestamp: Schema.String,
    status: Schema.Int,
    success: Schema.Boolean,
    message: Schema.String,
    data
  })

/** The webhook's reduced envelope. */
export const ReducedEnvelope = <Data extends Schema.Top>(data: Data) =>
  Schema.Struct({ status: Schema.Int, message: Schema.String, data })
