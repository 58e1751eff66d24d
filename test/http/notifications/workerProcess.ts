// A notification worker as a process of its own, sending through the real firebase-admin to the
// test's fake FCM (FAKE_FCM_PORT, its CA in FAKE_FCM_CA_PEM) on DATABASE_URL, with NOTIFICATIONS_*
// from the environment: what the crash test SIGKILLs mid-send. Prints "worker ready" once delivering.
import { NodeRuntime } from "@effect/platform-node"
import * as PostgresClient from "@payments-gaming/adapters/postgres/PostgresClient"
import * as PushGatewaysLive from "@payments-gaming/adapters/push/PushGatewaysLive"
import { loopbackAgent } from "@payments-gaming/adapters/test/support/FakeFcmServer"
import * as Layers from "@payments-gaming/composition/Layers"
import { Effect, Layer, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { credential, PROJECT_ID } from "./FakePush.ts"

const env = process.env
const agent = loopbackAgent(Number(env.FAKE_FCM_PORT), env.FAKE_FCM_CA_PEM ?? "")
const push = Layers.pushWith(
  PushGatewaysLive.layer({
    production: false,
    fcm: { client: { projectId: PROJECT_ID, credential, httpAgent: agent } }
  })
)
const Worker = Layers.notificationsWorkerWith(push).pipe(
  Layer.provide(
    PostgresClient.layer({ url: Redacted.make(env.DATABASE_URL ?? ""), dataDir: undefined, maxConnections: 5 })
  ),
  Layer.provide(Reactivity.layer)
)

Effect.gen(function* () {
  yield* Layer.build(Worker)
  yield* Effect.sync(() => process.stdout.write("worker ready\n"))
  return yield* Effect.never
}).pipe(Effect.scoped, NodeRuntime.runMain)
