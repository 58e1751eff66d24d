import { Schema } from "effect"

/** Which provider a device token belongs to. */
export const TokenType = Schema.Literals(["FCM", "APNS"])
export type TokenType = typeof TokenType.Type

/** Provider failures, normalised across FCM and APNs. */
export const PushErrorCode = Schema.Literals([
  "UNREGISTERED",
  "INVALID_TOKEN",
  "INVALID_ARGUMENT",
  "SENDER_ID_MISMATCH",
  "QUOTA_EXCEEDED",
  "UNAVAILABLE",
  "INTERNAL",
  "AUTH_ERROR",
  "TIMEOUT",
  "PROVIDER_NOT_CONFIGURED",
  "UNKNOWN"
])
export type PushErrorCode = typeof PushErrorCode.Type

export const PushData = Schema.Record(Schema.String, Schema.String)
export type PushData = typeof PushData.Type

/** One push to one device token, as the debug endpoint receives it. */
export const PushMessage = Schema.Struct({
  tokenType: TokenType,
  token: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(4096)),
  title: Schema.String,
  body: Schema.String,
  data: Schema.optionalKey(PushData)
})
export type PushMessage = typeof PushMessage.Type

/** What a gateway delivers: the message without its addressing. */
export interface PushNotification {
  readonly title: string
  readonly body: string
  readonly data?: PushData
  /**
   * Sent as FCM's `android.collapse_key` and Android notification `tag`, and as `apns-collapse-id` (on
   * FCM and on APNs): a second push with the same key replaces the first on the device instead of
   * showing twice (on Android the tag does that once the first is shown). At most 64 bytes.
   */
  readonly collapseKey?: string
}

/**
 * Which notification a push carries (absent for the debug push, which has none): its collapse key
 * for the provider, and what the delivery log keeps of it.
 */
export interface PushContext {
  readonly notificationId: string
  readonly deviceId: string
  readonly collapseKey: string
  /** An earlier send of this notification may have reached the provider: this one may be a duplicate. */
  readonly resend: boolean
}

/** The outcome of one send; the field order is the order of the response body. */
export const PushResult = Schema.Struct({
  success: Schema.Boolean,
  errorCode: Schema.NullOr(PushErrorCode),
  errorMessage: Schema.NullOr(Schema.String),
  shouldDeactivateToken: Schema.Boolean,
  retryable: Schema.Boolean,
  providerMessageId: Schema.NullOr(Schema.String)
})
export type PushResult = typeof PushResult.Type

// The provider has said the token is dead: the caller should stop using it.
const DEACTIVATING: ReadonlySet<PushErrorCode> = new Set(["UNREGISTERED", "INVALID_TOKEN", "SENDER_ID_MISMATCH"])
// Transient failures: the same send may succeed later.
const RETRYABLE: ReadonlySet<PushErrorCode> = new Set(["QUOTA_EXCEEDED", "UNAVAILABLE", "INTERNAL", "TIMEOUT"])

export const success = (providerMessageId: string): PushResult => ({
  success: true,
  errorCode: null,
  errorMessage: null,
  shouldDeactivateToken: false,
  retryable: false,
  providerMessageId
})

export const failure = (errorCode: PushErrorCode, errorMessage: string): PushResult => ({
  success: false,
  errorCode,
  errorMessage,
  shouldDeactivateToken: DEACTIVATING.has(errorCode),
  retryable: RETRYABLE.has(errorCode),
  providerMessageId: null
})

export const notificationOf = (message: PushMessage, collapseKey?: string): PushNotification => ({
  title: message.title,
  body: message.body,
  ...(message.data === undefined ? {} : { data: message.data }),
  ...(collapseKey === undefined ? {} : { collapseKey })
})

/** The last 8 characters of a token: enough to recognise it in the delivery log, too few to use it. */
export const tokenLast8 = (token: string): string => token.slice(-8)
