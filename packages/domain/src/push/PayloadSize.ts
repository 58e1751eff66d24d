import { Effect } from "effect"
import { utf8Bytes } from "../text/Utf8Bytes.ts"
import { PayloadTooLarge } from "./Errors.ts"
import type { PushData, TokenType } from "./Model.ts"

/** Both FCM and APNs refuse a notification payload over 4 KiB. */
export const PAYLOAD_LIMIT_BYTES = 4096

export interface SizedMessage {
  readonly token: string
  readonly title: string
  readonly body: string
  readonly data?: PushData | undefined
}

/**
 * The byte size of the payload each provider counts against its 4 KiB limit. FCM counts the
 * message's notification and data, not the addressing (a 4096-character token is a legal token,
 * not an oversized message); APNs counts `{...data, aps}` (the token travels in the URL), where
 * `aps` wins over a data key of the same name, as the APNs client builds it.
 */
export const encodedPayloadSize = (message: SizedMessage, tokenType: TokenType): number => {
  const notification = { title: message.title, body: message.body }
  const json =
    tokenType === "FCM"
      ? JSON.stringify({ notification, data: message.data })
      : JSON.stringify({ ...message.data, aps: { alert: notification } })
  return utf8Bytes(json).length
}

export const checkPayloadSize = (
  message: SizedMessage,
  tokenType: TokenType
): Effect.Effect<number, PayloadTooLarge> => {
  const size = encodedPayloadSize(message, tokenType)
  return size > PAYLOAD_LIMIT_BYTES
    ? Effect.fail(new PayloadTooLarge({ tokenType, size, limit: PAYLOAD_LIMIT_BYTES }))
    : Effect.succeed(size)
}
