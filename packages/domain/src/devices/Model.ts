import { Redacted, Schema } from "effect"
import { UtcSecondsTimestamp } from "../cards/Model.ts"
import { TokenType, tokenLast8 } from "../push/Model.ts"

export { TokenType, tokenLast8 }

/** The id of one registered device (a row of `user_devices`). */
export const DeviceId = Schema.String.check(Schema.isUUID(undefined, { message: "deviceId must be a UUID" })).pipe(
  Schema.brand("DeviceId")
)
export type DeviceId = typeof DeviceId.Type

/** The `deactivation_reason` of a device its user removed (`DELETE /v1/user/devices/{deviceId}`). */
export const REMOVED_BY_USER = "removed by user"

/**
 * The most active devices one user may hold. Every credit writes one outbox row per active device
 * in the credit's own transaction (issue 18), so an unbounded list would let one user multiply the
 * work of every deposit; 20 is far more phones, tablets and browsers than anyone signs in on.
 */
export const MAX_ACTIVE_DEVICES = 20

/**
 * The most removed or deactivated devices kept per user, the newest; older ones are deleted when
 * another is deactivated. An inactive device keeps no token (it is erased at deactivation: nothing
 * sends to an inactive device), only when and why it stopped, so register and remove cycles cannot
 * grow a user's rows without bound (issue 34).
 */
export const MAX_INACTIVE_DEVICES = 20

/** The push endpoint's bound on any token (push/Model.ts `PushMessage`), kept for stored tokens too. */
export const MAX_TOKEN_LENGTH = 4096

// An APNs device token is the hex form of the bytes Apple hands the app: 32 bytes today, and Apple
// says not to rely on the length, so up to 100 bytes are taken. Hex is case-insensitive: it is
// stored lowercase, so one device in either case is one row.
const APNS_TOKEN = /^(?:[0-9a-fA-F]{2}){32,100}$/
// An FCM registration token is URL-safe base64 text with a ':' after the instance id (about 160
// characters today; Google documents no fixed length). Anything else (spaces, quotes, a JSON blob
// pasted whole) is a client bug better refused here than by Google at every deposit.
const FCM_TOKEN = /^[A-Za-z0-9_:-]{64,4096}$/

/** Whether `token` has the shape its provider issues. */
export const hasTokenShape = (tokenType: TokenType, token: string): boolean =>
  tokenType === "APNS" ? APNS_TOKEN.test(token) : FCM_TOKEN.test(token)

/** The token as it is stored and sent: APNs hex lowercased, FCM tokens (case-sensitive) untouched. */
export const canonicalToken = (tokenType: TokenType, token: string): string =>
  tokenType === "APNS" ? token.toLowerCase() : token

const TOKEN_SHAPES: Record<TokenType, string> = {
  APNS: "token must be an APNs device token: 64 to 200 hexadecimal digits",
  FCM: "token must be an FCM registration token: 64 to 4096 letters, digits, '_', '-' or ':'"
}

/**
 * A device token, held as a `Redacted` from the moment it is decoded: a token lets anyone push to
 * the device, so no log line, error or `String()` of a request may show it. No message below
 * quotes it either.
 */
const DeviceTokenText = Schema.String.annotate({ message: "token must be a string" }).check(
  Schema.isBetweenLength(1, MAX_TOKEN_LENGTH, { message: `token must be 1 to ${MAX_TOKEN_LENGTH} characters long` })
)
export const DeviceToken = Schema.RedactedFromValue(DeviceTokenText)
export type DeviceToken = typeof DeviceToken.Type

/** What kind of device, as the app says it (`ios`, `android`, `web`…); informative only. */
export const Platform = Schema.String.annotate({ message: "platform must be a string" }).check(
  Schema.isPattern(/^[A-Za-z0-9._-]{1,32}$/, {
    message: "platform must be 1 to 32 letters, digits, '.', '_' or '-' (ios, android, web…)"
  })
)

const hasItsShape = Schema.makeFilter((input: { readonly tokenType: TokenType; readonly token: DeviceToken }) =>
  hasTokenShape(input.tokenType, Redacted.value(input.token))
    ? undefined
    : { path: ["token"], issue: TOKEN_SHAPES[input.tokenType] }
)

const field = <S extends Schema.Top>(name: string, description: string) =>
  Schema.annotateKey<S>({ description, messageMissingKey: `${name} is required` })

/** The body of `PUT /v1/user/devices`. */
export const RegisterDeviceRequest = Schema.Struct({
  tokenType: TokenType.annotate({ message: "tokenType must be FCM or APNS" }).pipe(
    field("tokenType", "FCM or APNS: the provider the token belongs to")
  ),
  token: DeviceToken.pipe(
    field(
      "token",
      "The device's push token: an FCM registration token, or an APNs device token in hex. Never logged; answers show its last 8 characters"
    )
  ),
  platform: Schema.optionalKey(
    Schema.NullOr(Platform).annotateKey({ description: "ios, android, web…: informative only" })
  )
})
  .check(hasItsShape)
  .annotate({ identifier: "RegisterDeviceRequest" })
export type RegisterDeviceRequest = typeof RegisterDeviceRequest.Type

/** What `Devices.register` stores: the token canonical (`canonicalToken`) and still redacted. */
export interface DeviceRegistration {
  readonly tokenType: TokenType
  readonly token: DeviceToken
  readonly platform: string | null
}

/** A decoded request as `Devices.register` takes it. */
export const registrationOf = (request: RegisterDeviceRequest): DeviceRegistration => ({
  tokenType: request.tokenType,
  token: Redacted.make(canonicalToken(request.tokenType, Redacted.value(request.token))),
  platform: request.platform ?? null
})

/**
 * A registered device as answered: never the token, only its last 8 characters, enough for a user
 * to tell two devices apart. A plain struct, built by the adapter from checked columns (as `Card`).
 */
export const DeviceView = Schema.Struct({
  deviceId: DeviceId,
  tokenType: TokenType,
  tokenLast8: Schema.String,
  platform: Schema.NullOr(Schema.String),
  createdAt: UtcSecondsTimestamp
}).annotate({ identifier: "DeviceView" })
export type DeviceView = typeof DeviceView.Type
