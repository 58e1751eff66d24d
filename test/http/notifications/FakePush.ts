import * as PushGatewaysLive from "@payments-gaming/adapters/push/PushGatewaysLive"
import { FakeApnsServer } from "@payments-gaming/adapters/test/support/FakeApnsServer"
import { FakeFcmServer } from "@payments-gaming/adapters/test/support/FakeFcmServer"
import * as Layers from "@payments-gaming/composition/Layers"
import { type Duration, Effect, Layer } from "effect"

export const PROJECT_ID = "outbox-test"
export const TOPIC = "com.example.wallet"

// firebase-admin asks the credential for an OAuth token; no Google endpoint is involved.
export const credential = { getAccessToken: async () => ({ access_token: "test-access-token", expires_in: 3600 }) }

/**
 * `PushService` as the service builds it (Layers.pushWith, the delivery log in PostgreSQL) on the
 * real FCM and APNs gateways, whose client libraries talk to the local fake servers, which stay
 * reachable for the test to script and read.
 */
export const fakePushWith = (options: { readonly timeout?: Duration.Input } = {}) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const fcm = yield* FakeFcmServer
      const apns = yield* FakeApnsServer
      // Fresh: beside the app's own `Push`, whose layers are shared by reference within a build.
      return Layer.fresh(
        Layers.pushWith(
          PushGatewaysLive.layer({
            production: false,
            fcm: { client: { projectId: PROJECT_ID, credential, httpAgent: fcm.agent }, ...options },
            apns: {
              topic: TOPIC,
              ...options,
              client: {
                keyPath: apns.certificates.apnsKeyPath,
                keyId: "ABC123DEFG",
                teamId: "DEF123GHIJ",
                production: false,
                address: "localhost",
                port: apns.port,
                ca: [apns.certificates.caPem]
              }
            }
          })
        )
      )
    })
  )

/** `fakePushWith` with the gateways' usual time-outs (10 s). */
export const FakePush = fakePushWith()

export const FakeProviders = Layer.merge(FakeFcmServer.layer, FakeApnsServer.layer)

let counter = 0
/** A fresh FCM registration token of the shape the devices API takes. */
export const fcmToken = (label: string) => `${label}${++counter}:${"F".repeat(80)}`
/** A fresh APNs device token (hex, as the devices API stores it: lower case). */
export const apnsToken = () => (++counter).toString(16).padStart(8, "0").repeat(8)
