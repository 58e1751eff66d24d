import { readFile } from "node:fs/promises"
import type { Notification, ProviderOptions } from "@parse/node-apn"
import { Context, Effect, Layer, Option, Predicate, Schema } from "effect"

export interface ApnsClientOptions {
  /** The `.p8` signing key Apple issued (PKCS#8 PEM of a P-256 key). */
  readonly keyPath: string
  readonly keyId: string
  readonly teamId: string
  /** api.push.apple.com when true, the sandbox otherwise. */
  readonly production: boolean
  /** Overrides for a loopback server in tests. */
  readonly address?: string
  readonly port?: number
  readonly ca?: ReadonlyArray<string>
  /** Milliseconds node-apn waits for one answer. Default 5000. */
  readonly requestTimeout?: number
}

/** One alert notification to one device. */
export interface ApnsAlert {
  readonly token: string
  readonly topic: string
  readonly title: string
  readonly body: string
  readonly data?: Readonly<Record<string, string>>
  /** Sent as `apns-id`, so the notification has an id even if the answer lacks one. */
  readonly id: string
  /** Sent as `apns-collapse-id`: a repeated send replaces the first on the device. */
  readonly collapseKey?: string
}

/** What became of one notification, read from node-apn's answer. */
export type ApnsDelivery =
  | { readonly _tag: "Accepted"; readonly apnsId: string | null }
  /** APNs answered with an error `reason` (BadDeviceToken, Unregistered, …). */
  | { readonly _tag: "Rejected"; readonly status: number | null; readonly reason: string }
  /** No answer: connection failure, reset or time-out. */
  | { readonly _tag: "NoAnswer"; readonly message: string; readonly timedOut: boolean }

/** The client could not be set up: unreadable key or bad token options. */
export class ApnsClientError extends Schema.TaggedError<ApnsClientError>()("ApnsClientError", {
  message: Schema.String
}) {}

// node-apn's per-device answer: `sent` entries carry `apns-id`; `failed` ones a status and Apple's
// `{reason}` body, or only an `error` when no usable answer came back.
const Answer = Schema.Struct({
  sent: Schema.Array(Schema.Struct({ "apns-id": Schema.optionalKey(Schema.String) })),
  failed: Schema.Array(
    Schema.Struct({
      status: Schema.optionalKey(Schema.Unknown),
      response: Schema.optionalKey(Schema.Struct({ reason: Schema.String })),
      error: Schema.optionalKey(Schema.Unknown)
    })
  )
})
const decodeAnswer = Schema.decodeUnknownOption(Answer)

const errorText = (error: unknown): string =>
  Predicate.hasProperty(error, "message") && Predicate.isString(error.message) ? error.message : String(error)

const toDelivery = (answer: unknown): ApnsDelivery => {
  const decoded = Option.getOrUndefined(decodeAnswer(answer))
  const sent = decoded?.sent[0]
  if (sent !== undefined) return { _tag: "Accepted", apnsId: sent["apns-id"] ?? null }
  const failed = decoded?.failed[0]
  if (failed === undefined) return { _tag: "NoAnswer", message: `Unexpected APNs client answer`, timedOut: false }
  const status = Predicate.isNumber(failed.status) ? failed.status : null
  if (failed.response !== undefined) return { _tag: "Rejected", status, reason: failed.response.reason }
  const message = errorText(failed.error)
  // node-apn keeps Apple's reason only as its error text for these two, after retrying them itself.
  if (status === 500) return { _tag: "Rejected", status, reason: "InternalServerError" }
  if (status === 403 && message === "ExpiredProviderToken") return { _tag: "Rejected", status, reason: message }
  return { _tag: "NoAnswer", message, timedOut: message === "apn write timeout" }
}

// node-apn and its dependencies (node-forge, jsonwebtoken, …) are loaded when an APNs client is
// built, so a service with APNs unconfigured (development, the benchmark) does not load them at start-up.
type NodeApn = typeof import("@parse/node-apn")

const loadNodeApn = Effect.tryPromise({
  try: (): Promise<NodeApn> => import("@parse/node-apn"),
  catch: (cause) => new ApnsClientError({ message: `Cannot load @parse/node-apn: ${errorText(cause)}` })
})

const buildNotification = (apn: NodeApn, alert: ApnsAlert): Notification => {
  const notification = new apn.Notification()
  notification.topic = alert.topic
  notification.id = alert.id
  notification.pushType = "alert"
  notification.alert = { title: alert.title, body: alert.body }
  notification.payload = { ...alert.data }
  if (alert.collapseKey !== undefined) notification.collapseId = alert.collapseKey
  return notification
}

/** One long-lived node-apn Provider (one HTTP/2 session, token auth), shut down with the layer. */
export class ApnsClient extends Context.Service<
  ApnsClient,
  {
    readonly send: (alert: ApnsAlert) => Effect.Effect<ApnsDelivery>
  }
>()("@payments-gaming/adapters/apns/ApnsClient") {
  static readonly layer = (options: ApnsClientOptions): Layer.Layer<ApnsClient, ApnsClientError> =>
    Layer.effect(
      ApnsClient,
      Effect.gen(function* () {
        const apn = yield* loadNodeApn
        const key = yield* Effect.tryPromise({
          try: () => readFile(options.keyPath, "utf8"),
          catch: (cause) =>
            new ApnsClientError({ message: `Cannot read the APNs key ${options.keyPath}: ${String(cause)}` })
        })
        const providerOptions: ProviderOptions = {
          token: { key, keyId: options.keyId, teamId: options.teamId },
          production: options.production,
          ...(options.address === undefined ? {} : { address: options.address }),
          ...(options.port === undefined ? {} : { port: options.port }),
          ...(options.ca === undefined ? {} : { ca: [...options.ca] }),
          ...(options.requestTimeout === undefined ? {} : { requestTimeout: options.requestTimeout })
        }
        const provider = yield* Effect.acquireRelease(
          Effect.try({
            try: () => new apn.Provider(providerOptions),
            catch: (cause) => new ApnsClientError({ message: `Cannot start the APNs client: ${errorText(cause)}` })
          }),
          (provider) =>
            Effect.callback<void>((resume) => {
              provider.shutdown(() => resume(Effect.void))
            }).pipe(
              // Shutting down waits for open streams; one that never ends must not hold the process.
              Effect.timeoutOrElse({ duration: "3 seconds", orElse: () => Effect.void })
            )
        )

        const send = (alert: ApnsAlert) =>
          Effect.tryPromise({
            try: () => provider.send(buildNotification(apn, alert), alert.token),
            catch: (error) => error
          }).pipe(
            Effect.map(toDelivery),
            Effect.catch((error) =>
              Effect.succeed<ApnsDelivery>({ _tag: "NoAnswer", message: errorText(error), timedOut: false })
            )
          )

        return ApnsClient.of({ send })
      })
    )
}
