import { Schema } from "effect"

/** A bearer token that is missing, malformed, expired, badly signed or of a refused algorithm. */
export class InvalidToken extends Schema.TaggedError<InvalidToken>()("InvalidToken", {
  reason: Schema.String
}) {}

/** An authenticated caller asking for something its roles or keys do not allow. */
export class NotAllowed extends Schema.TaggedError<NotAllowed>()("NotAllowed", {
  reason: Schema.String
}) {}
