import { randomUUID } from "node:crypto"
import { failure, type PushErrorCode, type PushGateway, type PushResult, success } from "@payments-gaming/domain/push"
import { Duration, Effect } from "effect"
import { answerWithin } from "../push/AnswerWithin.ts"
import { ApnsClient, type ApnsDelivery } from "./ApnsClient.ts"

export interface ApnsGatewayOptions {
  /** The app's bundle id, sent as `apns-topic`. */
  readonly topic: string
  /** How long one send may take, node-apn's own retries included. Default 10 seconds. */
  readonly timeout?: Duration.Input
}

/**
 * Apple's `reason` values. BadTopic and MissingTopic say our configured topic is wrong, not the
 * token, so they are INVALID_ARGUMENT and the token is kept; DeviceTokenNotForTopic and
 * TopicDisallowed name the token as not for this app, so it is deactivated.
 */
const BY_REASON: Readonly<Record<string, PushErrorCode>> = {
  BadDeviceToken: "INVALID_TOKEN",
  DeviceTokenNotForTopic: "INVALID_TOKEN",
  TopicDisallowed: "INVALID_TOKEN",
  Unregistered: "UNREGISTERED",
  ExpiredToken: "UNREGISTERED",
  TooManyRequests: "QUOTA_EXCEEDED",
  TooManyProviderTokenUpdates: "QUOTA_EXCEEDED",
  InternalServerError: "INTERNAL",
  ServiceUnavailable: "UNAVAILABLE",
  Shutdown: "UNAVAILABLE",
  ExpiredProviderToken: "AUTH_ERROR",
  InvalidProviderToken: "AUTH_ERROR",
  MissingProviderToken: "AUTH_ERROR",
  BadCertificate: "AUTH_ERROR",
  BadCertificateEnvironment: "AUTH_ERROR",
  Forbidden: "AUTH_ERROR",
  PayloadEmpty: "INVALID_ARGUMENT",
  PayloadTooLarge: "INVALID_ARGUMENT",
  BadTopic: "INVALID_ARGUMENT",
  MissingTopic: "INVALID_ARGUMENT",
  BadCollapseId: "INVALID_ARGUMENT",
  BadExpirationDate: "INVALID_ARGUMENT",
  BadMessageId: "INVALID_ARGUMENT",
  BadPriority: "INVALID_ARGUMENT",
  InvalidPushType: "INVALID_ARGUMENT",
  DuplicateHeaders: "INVALID_ARGUMENT",
  BadPath: "INVALID_ARGUMENT",
  MethodNotAllowed: "INVALID_ARGUMENT",
  MissingDeviceToken: "INVALID_ARGUMENT"
}

export const apnsErrorCode = (reason: string): PushErrorCode =>
  Object.hasOwn(BY_REASON, reason) ? (BY_REASON[reason] ?? "UNKNOWN") : "UNKNOWN"

const toResult = (delivery: ApnsDelivery, sentId: string): PushResult => {
  switch (delivery._tag) {
    case "Accepted":
      return success(delivery.apnsId ?? sentId)
    case "Rejected":
      return failure(apnsErrorCode(delivery.reason), delivery.reason)
    case "NoAnswer":
      return failure(delivery.timedOut ? "TIMEOUT" : "UNAVAILABLE", delivery.message)
  }
}

// APNs device tokens are hexadecimal; anything else would also be pasted into the request path.
const DEVICE_TOKEN = /^[0-9a-fA-F]+$/

/** The APNs gateway: an alert notification to the configured topic, Apple's answer as a `PushResult`. */
export const make = Effect.fn("ApnsGateway.make")(function* (options: ApnsGatewayOptions) {
  const client = yield* ApnsClient
  const timeout = Duration.fromInputUnsafe(options.timeout ?? "10 seconds")

  const send: PushGateway["send"] = (token, notification) => {
    if (!DEVICE_TOKEN.test(token)) {
      return Effect.succeed(failure("INVALID_TOKEN", "The APNs device token is not hexadecimal"))
    }
    const id = randomUUID()
    return client
      .send({
        token,
        topic: options.topic,
        title: notification.title,
        body: notification.body,
        ...(notification.data === undefined ? {} : { data: notification.data }),
        ...(notification.collapseKey === undefined ? {} : { collapseKey: notification.collapseKey }),
        id
      })
      .pipe(
        Effect.map((delivery) => toResult(delivery, id)),
        answerWithin(timeout, "APNs", "ApnsGateway.send")
      )
  }

  const gateway: PushGateway = { name: "apns", configured: true, send }
  return gateway
})
