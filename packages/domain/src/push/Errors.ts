import { Schema } from "effect"
import { TokenType } from "./Model.ts"

/** The notification, encoded as its provider would receive it, is over the provider's size limit. */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  tokenType: TokenType,
  size: Schema.Int,
  limit: Schema.Int
}) {
  override get message(): string {
    return `The encoded ${this.tokenType} payload is ${this.size} bytes; the limit is ${this.limit}`
  }
}

/** The delivery log could not store an attempt; the push itself has already been sent or refused. */
export class DeliveryNotRecorded extends Schema.TaggedError<DeliveryNotRecorded>()("DeliveryNotRecorded", {
  cause: Schema.Defect()
}) {}
