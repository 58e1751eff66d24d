import { Schema } from "effect"

export class NotificationNotFound extends Schema.TaggedError<NotificationNotFound>()("NotificationNotFound", {
  id: Schema.String,
  message: Schema.String
}) {}
