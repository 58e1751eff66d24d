import { PushGateways } from "@payments-gaming/domain/push"
import { Config, type Duration, Effect, Layer, Option, Schema } from "effect"
import { ApnsClient, type ApnsClientError, type ApnsClientOptions } from "../apns/ApnsClient.ts"
import * as ApnsGateway from "../apns/ApnsGateway.ts"
import { isProduction } from "../config/NodeEnv.ts"
import { FcmClient, type FcmClientError, type FcmClientOptions } from "../fcm/FcmClient.ts"
import * as FcmGateway from "../fcm/FcmGateway.ts"
import { DevelopmentSink } from "./DevelopmentSink.ts"

/** The push settings are contradictory, e.g. only some of the APNs variables are set. */
export class PushConfigError extends Schema.TaggedError<PushConfigError>()("PushConfigError", {
  message: Schema.String
}) {}

export interface PushGatewaysOptions {
  /** Decides what the development sink does for a provider left unconfigured. */
  readonly production: boolean
  readonly fcm?: { readonly client: FcmClientOptions; readonly timeout?: Duration.Input } | undefined
  readonly apns?:
    | { readonly client: ApnsClientOptions; readonly topic: string; readonly timeout?: Duration.Input }
    | undefined
}

/**
 * The real gateway for each configured provider, the development sink for the others. Clients live
 * as long as this layer. `DevelopmentSink` is exposed so tests and tools can read what it kept.
 */
export const layer = (
  options: PushGatewaysOptions
): Layer.Layer<PushGateways | DevelopmentSink, FcmClientError | ApnsClientError> =>
  Layer.effect(
    PushGateways,
    Effect.gen(function* () {
      const sink = yield* DevelopmentSink
      const fcm =
        options.fcm === undefined
          ? sink.gatewayFor("FCM")
          : yield* FcmGateway.make(options.fcm.timeout === undefined ? {} : { timeout: options.fcm.timeout }).pipe(
              Effect.provide(yield* Layer.build(FcmClient.layer(options.fcm.client)))
            )
      const apns =
        options.apns === undefined
          ? sink.gatewayFor("APNS")
          : yield* ApnsGateway.make({
              topic: options.apns.topic,
              ...(options.apns.timeout === undefined ? {} : { timeout: options.apns.timeout })
            }).pipe(Effect.provide(yield* Layer.build(ApnsClient.layer(options.apns.client))))

      const describe = (gateway: { readonly configured: boolean }, provider: string) =>
        gateway.configured
          ? provider
          : options.production
            ? "not configured: answers PROVIDER_NOT_CONFIGURED"
            : "development sink (kept in memory)"
      yield* Effect.logInfo("Push gateways", {
        FCM: describe(fcm, "FCM via firebase-admin"),
        APNS: describe(apns, `APNs ${options.apns?.client.production ? "production" : "sandbox"} via @parse/node-apn`)
      })
      if (options.production && !(fcm.configured && apns.configured)) {
        yield* Effect.logWarning("Push: a provider is not configured in production; its sends will fail")
      }
      return PushGateways.of({ FCM: fcm, APNS: apns })
    })
  ).pipe(Layer.provideMerge(DevelopmentSink.layer({ production: options.production })))

// An unset or blank variable is absent.
const optionalString = (name: string) =>
  Config.String(name).pipe(Config.option, Config.map(Option.filter((value) => value.trim() !== "")))

const readOptions = Effect.gen(function* () {
  const production = yield* isProduction

  const serviceAccount = yield* optionalString("FCM_SERVICE_ACCOUNT")
  const fcmFile = Option.isSome(serviceAccount)
    ? serviceAccount
    : yield* optionalString("GOOGLE_APPLICATION_CREDENTIALS")

  const apnsVariables = {
    APNS_KEY_PATH: yield* optionalString("APNS_KEY_PATH"),
    APNS_KEY_ID: yield* optionalString("APNS_KEY_ID"),
    APNS_TEAM_ID: yield* optionalString("APNS_TEAM_ID"),
    APNS_TOPIC: yield* optionalString("APNS_TOPIC")
  }
  const missing = Object.entries(apnsVariables).flatMap(([name, value]) => (Option.isNone(value) ? [name] : []))
  if (missing.length > 0 && missing.length < Object.keys(apnsVariables).length) {
    return yield* new PushConfigError({
      message: `APNs is half configured: set ${missing.join(", ")} as well, or none of the APNS_ variables`
    })
  }
  const apnsProduction = yield* Config.Boolean("APNS_PRODUCTION").pipe(Config.withDefault(production))

  const options: PushGatewaysOptions = {
    production,
    fcm: Option.getOrUndefined(Option.map(fcmFile, (serviceAccountPath) => ({ client: { serviceAccountPath } }))),
    apns: Option.getOrUndefined(
      Option.map(Option.all(apnsVariables), (apns) => ({
        topic: apns.APNS_TOPIC,
        client: {
          keyPath: apns.APNS_KEY_PATH,
          keyId: apns.APNS_KEY_ID,
          teamId: apns.APNS_TEAM_ID,
          production: apnsProduction
        }
      }))
    )
  }
  return options
})

/**
 * `PushGateways` from the environment: `FCM_SERVICE_ACCOUNT` or `GOOGLE_APPLICATION_CREDENTIALS`
 * (a service-account JSON file) turns FCM on; `APNS_KEY_PATH`, `APNS_KEY_ID`, `APNS_TEAM_ID` and
 * `APNS_TOPIC` together turn APNs on (`APNS_PRODUCTION` picks the endpoint, by default
 * production when `NODE_ENV=production`). `NODE_ENV=production` makes the sink refuse.
 */
export const layerConfig: Layer.Layer<
  PushGateways | DevelopmentSink,
  Config.ConfigError | PushConfigError | FcmClientError | ApnsClientError
> = Layer.unwrap(Effect.map(readOptions, layer))
