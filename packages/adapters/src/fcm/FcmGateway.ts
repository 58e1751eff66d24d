import { failure, type PushErrorCode, type PushGateway, success } from "@payments-gaming/domain/push"
import { Duration, Effect } from "effect"
import { answerWithin } from "../push/AnswerWithin.ts"
import { FcmClient, type FcmSendError } from "./FcmClient.ts"

export interface FcmGatewayOptions {
  /** How long one send may take, firebase-admin's own retries included. Default 10 seconds. */
  readonly timeout?: Duration.Input
}

// FCM's text for a malformed token, which it reports as a plain INVALID_ARGUMENT.
const INVALID_TOKEN_TEXT = /registration token is not a valid FCM registration token|invalid registration token/i

const BY_CODE: Readonly<Record<string, PushErrorCode>> = {
  "messaging/registration-token-not-registered": "UNREGISTERED",
  "messaging/invalid-registration-token": "INVALID_TOKEN",
  "messaging/mismatched-credential": "SENDER_ID_MISMATCH",
  "messaging/message-rate-exceeded": "QUOTA_EXCEEDED",
  "messaging/device-message-rate-exceeded": "QUOTA_EXCEEDED",
  "messaging/server-unavailable": "UNAVAILABLE",
  "messaging/internal-error": "INTERNAL",
  "messaging/third-party-auth-error": "AUTH_ERROR",
  // FCM refused our own credentials (401/403 without an FCM error body).
  "messaging/authentication-error": "AUTH_ERROR",
  // The OAuth token for FCM could not be obtained.
  "app/invalid-credential": "AUTH_ERROR",
  // firebase-admin's own validation and the legacy argument codes: the message is at fault.
  "messaging/invalid-payload": "INVALID_ARGUMENT",
  "messaging/payload-size-limit-exceeded": "INVALID_ARGUMENT",
  "messaging/invalid-data-payload-key": "INVALID_ARGUMENT",
  "messaging/invalid-options": "INVALID_ARGUMENT",
  // No answer from FCM: connection refused or reset after firebase-admin's retries.
  "app/network-error": "UNAVAILABLE",
  "app/network-timeout": "TIMEOUT"
}

/** Normalises a firebase-admin failure; anything unrecognised is UNKNOWN. */
export const fcmErrorCode = (
  error: Pick<FcmSendError, "code" | "message" | "status" | "fcmErrorCode">
): PushErrorCode => {
  if (error.code === "messaging/invalid-argument") {
    return INVALID_TOKEN_TEXT.test(error.message) ? "INVALID_TOKEN" : "INVALID_ARGUMENT"
  }
  // firebase-admin also names a bare 403 PERMISSION_DENIED (say, a service account without the
  // FCM permission) "mismatched-credential": that is our credentials' fault, not the token's.
  if (
    error.code === "messaging/mismatched-credential" &&
    error.status === "PERMISSION_DENIED" &&
    error.fcmErrorCode === null
  ) {
    return "AUTH_ERROR"
  }
  return Object.hasOwn(BY_CODE, error.code) ? (BY_CODE[error.code] ?? "UNKNOWN") : "UNKNOWN"
}

/** The FCM gateway: firebase-admin's `send`, its result and errors as a `PushResult`. */
export const make = Effect.fn("FcmGateway.make")(function* (options: FcmGatewayOptions = {}) {
  const client = yield* FcmClient
  const timeout = Duration.fromInputUnsafe(options.timeout ?? "10 seconds")

  const send: PushGateway["send"] = (token, notification) =>
    client
      .send({
        token,
        notification: { title: notification.title, body: notification.body },
        ...(notification.data === undefined ? {} : { data: notification.data }),
        ...(notification.collapseKey === undefined ? {} : { collapseKey: notification.collapseKey })
      })
      .pipe(
        Effect.map(success),
        Effect.catchTag("FcmSendError", (error) => Effect.succeed(failure(fcmErrorCode(error), error.message))),
        answerWithin(timeout, "FCM", "FcmGateway.send")
      )

  const gateway: PushGateway = { name: "fcm", configured: true, send }
  return gateway
})
