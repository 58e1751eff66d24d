import { assert, describe, it } from "@effect/vitest"
import { PushGateways } from "@payments-gaming/domain/push"
import { ConfigProvider, Effect, Layer, Logger } from "effect"
import { DevelopmentSink } from "../../src/push/DevelopmentSink.ts"
import * as PushGatewaysLive from "../../src/push/PushGatewaysLive.ts"
import { makeTestCertificates } from "../support/TestCertificates.ts"

const notification = { title: "Hi", body: "There", data: { notificationId: "n-1" } }

/** Runs `PushGatewaysLive.layerConfig` on the given environment, collecting what it logs. */
const withEnvironment = <A, E>(
  env: Record<string, string>,
  use: (gateways: PushGateways["Service"], sink: DevelopmentSink["Service"]) => Effect.Effect<A, E>
) => {
  const logs: Array<string> = []
  const logger = Logger.make(({ message }) => {
    logs.push(JSON.stringify(message))
  })
  return Effect.gen(function* () {
    const gateways = yield* PushGateways
    const sink = yield* DevelopmentSink
    return yield* use(gateways, sink)
  }).pipe(
    Effect.provide(PushGatewaysLive.layerConfig),
    Effect.provide(Layer.merge(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)), Logger.layer([logger]))),
    Effect.map((value) => ({ value, logs }))
  )
}

describe("DevelopmentSink", () => {
  it.effect("outside production keeps the push and succeeds with local-<uuid>", () =>
    Effect.gen(function* () {
      const sink = yield* DevelopmentSink
      const gateway = sink.gatewayFor("FCM")
      const result = yield* gateway.send("token-1", notification)

      assert.strictEqual(gateway.name, "development-sink")
      assert.isFalse(gateway.configured)
      assert.isTrue(result.success)
      assert.match(
        result.providerMessageId ?? "",
        /^local-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
      )
      assert.deepStrictEqual(yield* sink.received, [
        { tokenType: "FCM", token: "token-1", notification, providerMessageId: result.providerMessageId! }
      ])
    }).pipe(Effect.provide(DevelopmentSink.layer({ production: false })))
  )

  it.effect("keeps only the most recent pushes", () =>
    Effect.gen(function* () {
      const sink = yield* DevelopmentSink
      for (const token of ["a", "b", "c"]) yield* sink.gatewayFor("APNS").send(token, notification)
      assert.deepStrictEqual(
        (yield* sink.received).map((push) => push.token),
        ["b", "c"]
      )
    }).pipe(Effect.provide(DevelopmentSink.layer({ production: false, capacity: 2 })))
  )

  it.effect("in production answers PROVIDER_NOT_CONFIGURED and keeps nothing", () =>
    Effect.gen(function* () {
      const sink = yield* DevelopmentSink
      const result = yield* sink.gatewayFor("APNS").send("token-1", notification)
      assert.deepStrictEqual(result, {
        success: false,
        errorCode: "PROVIDER_NOT_CONFIGURED",
        errorMessage: "No APNS provider is configured",
        shouldDeactivateToken: false,
        retryable: false,
        providerMessageId: null
      })
      assert.deepStrictEqual(yield* sink.received, [])
    }).pipe(Effect.provide(DevelopmentSink.layer({ production: true })))
  )
})

describe("PushGatewaysLive.layerConfig", () => {
  it.effect("without provider settings uses the development sink for both, and says so", () =>
    Effect.gen(function* () {
      const { value, logs } = yield* withEnvironment({}, (gateways, sink) =>
        Effect.gen(function* () {
          const fcm = yield* gateways.FCM.send("fcm-token", notification)
          const apns = yield* gateways.APNS.send("abcd", notification)
          return {
            fcm,
            apns,
            kept: (yield* sink.received).map((push) => push.tokenType),
            names: [gateways.FCM.name, gateways.APNS.name]
          }
        })
      )
      assert.isTrue(value.fcm.success)
      assert.isTrue(value.apns.success)
      assert.deepStrictEqual(value.kept, ["FCM", "APNS"])
      assert.deepStrictEqual(value.names, ["development-sink", "development-sink"])
      const startup = logs.find((line) => line.includes("Push gateways"))
      assert.isDefined(startup)
      assert.include(startup, '"FCM":"development sink (kept in memory)"')
      assert.include(startup, '"APNS":"development sink (kept in memory)"')
    })
  )

  it.effect("with NODE_ENV=production and no providers answers PROVIDER_NOT_CONFIGURED", () =>
    Effect.gen(function* () {
      const { value, logs } = yield* withEnvironment({ NODE_ENV: "production" }, (gateways) =>
        gateways.FCM.send("fcm-token", notification)
      )
      assert.strictEqual(value.errorCode, "PROVIDER_NOT_CONFIGURED")
      assert.isTrue(logs.some((line) => line.includes("not configured in production")))
    })
  )

  it.effect("turns on the real FCM and APNs gateways when their settings are complete", () =>
    Effect.gen(function* () {
      const certificates = yield* makeTestCertificates
      const { value, logs } = yield* withEnvironment(
        {
          GOOGLE_APPLICATION_CREDENTIALS: certificates.serviceAccountPath,
          APNS_KEY_PATH: certificates.apnsKeyPath,
          APNS_KEY_ID: "ABC123DEFG",
          APNS_TEAM_ID: "DEF123GHIJ",
          APNS_TOPIC: "com.example.wallet",
          APNS_PRODUCTION: "true"
        },
        (gateways) => Effect.succeed([gateways.FCM, gateways.APNS].map((g) => [g.name, g.configured]))
      )
      assert.deepStrictEqual(value, [
        ["fcm", true],
        ["apns", true]
      ])
      const startup = logs.find((line) => line.includes("Push gateways")) ?? ""
      assert.include(startup, '"FCM":"FCM via firebase-admin"')
      assert.include(startup, '"APNS":"APNs production via @parse/node-apn"')
    })
  )

  it.effect("prefers FCM_SERVICE_ACCOUNT and fails to start on an unreadable one", () =>
    Effect.gen(function* () {
      const certificates = yield* makeTestCertificates
      const error = yield* withEnvironment(
        {
          FCM_SERVICE_ACCOUNT: `${certificates.dir}/nope.json`,
          GOOGLE_APPLICATION_CREDENTIALS: certificates.serviceAccountPath
        },
        () => Effect.void
      ).pipe(Effect.flip)
      assert.strictEqual(error._tag, "FcmClientError")
    })
  )

  it.effect("refuses half an APNs configuration", () =>
    Effect.gen(function* () {
      const error = yield* withEnvironment(
        { APNS_KEY_PATH: "/keys/apns.p8", APNS_TOPIC: "com.example.wallet" },
        () => Effect.void
      ).pipe(Effect.flip)
      assert.strictEqual(error._tag, "PushConfigError")
      assert.include(error.message, "APNS_KEY_ID, APNS_TEAM_ID")
    })
  )
})
