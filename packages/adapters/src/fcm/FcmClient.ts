import { randomUUID } from "node:crypto"
import { readFile } from "node:fs/promises"
import type { Agent } from "node:http"
import { Context, Effect, Layer, Option, Predicate, Schema } from "effect"
import type { App, Credential } from "firebase-admin/app"

/** Where the client's Google credentials come from. */
export type FcmClientOptions =
  | {
      /** A service-account JSON file, as downloaded from the Firebase console. */
      readonly serviceAccountPath: string
      readonly httpAgent?: Agent
    }
  | {
      readonly projectId: string
      readonly credential: Credential
      /** Routes the HTTP/1.1 requests, e.g. to a loopback fake in tests. */
      readonly httpAgent?: Agent
    }

/** The part of an FCM v1 message this service sends. */
export interface FcmMessage {
  readonly token: string
  readonly notification: { readonly title: string; readonly body: string }
  readonly data?: Readonly<Record<string, string>>
  /** `android.collapseKey` and the `apns-collapse-id` header of FCM's APNs delivery. */
  readonly collapseKey?: string
}

/**
 * A refusal or failure reported by firebase-admin: its error code (`messaging/…`, `app/…`) and text,
 * plus, when FCM answered, the response's `status` and FCM `errorCode` detail, which firebase-admin
 * folds together (a bare PERMISSION_DENIED and SENDER_ID_MISMATCH share one code).
 */
export class FcmSendError extends Schema.TaggedError<FcmSendError>()("FcmSendError", {
  code: Schema.String,
  message: Schema.String,
  status: Schema.NullOr(Schema.String),
  fcmErrorCode: Schema.NullOr(Schema.String)
}) {}

/** The client could not be set up: unreadable or malformed credentials. */
export class FcmClientError extends Schema.TaggedError<FcmClientError>()("FcmClientError", {
  message: Schema.String
}) {}

const ServiceAccountJson = Schema.fromJsonString(
  Schema.Struct({
    project_id: Schema.NonEmptyString,
    client_email: Schema.NonEmptyString,
    private_key: Schema.NonEmptyString
  })
)

// firebase-admin and its Google dependency tree are hundreds of modules: they are loaded when an FCM
// client is built, so a service with FCM unconfigured (development, the benchmark) does not load
// them at start-up.
const loadFirebaseAdmin = Effect.tryPromise({
  try: () => Promise.all([import("firebase-admin/app"), import("firebase-admin/messaging")]),
  catch: (cause) => new FcmClientError({ message: `Cannot load firebase-admin: ${String(cause)}` })
})

type Cert = typeof import("firebase-admin/app").cert

const readServiceAccount = (path: string, cert: Cert) =>
  Effect.tryPromise({
    try: () => readFile(path, "utf8"),
    catch: (cause) => new FcmClientError({ message: `Cannot read the FCM service account ${path}: ${String(cause)}` })
  }).pipe(
    Effect.flatMap(Schema.decodeUnknownEffect(ServiceAccountJson)),
    Effect.mapError((error) =>
      error._tag === "FcmClientError"
        ? error
        : new FcmClientError({ message: `Malformed FCM service account ${path}: ${error.message}` })
    ),
    Effect.map((account) => ({
      projectId: account.project_id,
      credential: cert({
        projectId: account.project_id,
        clientEmail: account.client_email,
        privateKey: account.private_key
      })
    }))
  )

const FCM_ERROR_TYPE = "type.googleapis.com/google.firebase.fcm.v1.FcmError"

// The error body of the FCM HTTP v1 API (google.rpc.Status).
const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    status: Schema.optionalKey(Schema.String),
    details: Schema.optionalKey(
      Schema.Array(
        Schema.Struct({ "@type": Schema.optionalKey(Schema.String), errorCode: Schema.optionalKey(Schema.String) })
      )
    )
  })
})
const decodeErrorBody = Schema.decodeUnknownOption(ErrorBody)

const toSendError = (cause: unknown): FcmSendError => {
  if (!Predicate.hasProperty(cause, "code") || !Predicate.isString(cause.code)) {
    return new FcmSendError({ code: "unknown", message: String(cause), status: null, fcmErrorCode: null })
  }
  const body =
    Predicate.hasProperty(cause, "httpResponse") && Predicate.hasProperty(cause.httpResponse, "data")
      ? Option.getOrUndefined(decodeErrorBody(cause.httpResponse.data))
      : undefined
  return new FcmSendError({
    code: cause.code,
    message: Predicate.hasProperty(cause, "message") && Predicate.isString(cause.message) ? cause.message : "",
    status: body?.error.status ?? null,
    fcmErrorCode: body?.error.details?.find((detail) => detail["@type"] === FCM_ERROR_TYPE)?.errorCode ?? null
  })
}

/** A firebase-admin app of its own (so several can coexist), deleted when the layer's scope closes. */
export class FcmClient extends Context.Service<
  FcmClient,
  {
    readonly projectId: string
    readonly send: (message: FcmMessage) => Effect.Effect<string, FcmSendError>
  }
>()("@payments-gaming/adapters/fcm/FcmClient") {
  static readonly layer = (options: FcmClientOptions): Layer.Layer<FcmClient, FcmClientError> =>
    Layer.effect(
      FcmClient,
      Effect.gen(function* () {
        const [{ cert, deleteApp, initializeApp }, { getMessaging }] = yield* loadFirebaseAdmin
        const { projectId, credential } =
          "serviceAccountPath" in options ? yield* readServiceAccount(options.serviceAccountPath, cert) : options
        const app: App = yield* Effect.acquireRelease(
          Effect.try({
            try: () =>
              initializeApp(
                options.httpAgent === undefined
                  ? { projectId, credential }
                  : { projectId, credential, httpAgent: options.httpAgent },
                `payments-gaming-fcm-${randomUUID()}`
              ),
            catch: (cause) => new FcmClientError({ message: `Cannot start firebase-admin: ${String(cause)}` })
          }),
          (app) => Effect.promise(() => deleteApp(app).catch(() => undefined))
        )
        const messaging = getMessaging(app)
        // The agent only carries HTTP/1.1 requests; batch sends would otherwise use HTTP/2 without it.
        if (options.httpAgent !== undefined) messaging.enableLegacyHttpTransport()

        const send = (message: FcmMessage) =>
          Effect.tryPromise({
            try: () =>
              messaging.send({
                token: message.token,
                notification: { title: message.notification.title, body: message.notification.body },
                ...(message.data === undefined ? {} : { data: { ...message.data } }),
                // The same key on Android and, through FCM, on iOS: a repeated send replaces the
                // first on the device. On Android the collapse key only merges messages still
                // waiting at FCM; once one is shown, the notification's tag is what replaces it in
                // the drawer, so both carry the key.
                ...(message.collapseKey === undefined
                  ? {}
                  : {
                      android: { collapseKey: message.collapseKey, notification: { tag: message.collapseKey } },
                      apns: { headers: { "apns-collapse-id": message.collapseKey } }
                    })
              }),
            catch: toSendError
          })

        return FcmClient.of({ projectId, send })
      })
    )
}
