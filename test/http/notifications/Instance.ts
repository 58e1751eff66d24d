import { runMigrations } from "@payments-gaming/adapters/postgres/Migrations"
import * as PostgresClient from "@payments-gaming/adapters/postgres/PostgresClient"
import { freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import * as Layers from "@payments-gaming/composition/Layers"
import type { PushService } from "@payments-gaming/domain/push"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { TestServerOn } from "../../support/TestServer.ts"
import { FakePush } from "./FakePush.ts"

/** A fresh database, migrated: several instances (or processes) then share it. */
export const migratedDatabase = Effect.gen(function* () {
  const url = yield* freshDatabaseUrl.pipe(Effect.provide(Reactivity.layer))
  yield* Effect.provide(
    runMigrations,
    yield* Layer.build(
      PostgresClient.layer({ url: Redacted.make(url), dataDir: undefined, maxConnections: 1 }).pipe(
        Layer.provide(Reactivity.layer)
      )
    )
  )
  return url
})

/**
 * One service instance as a process has it: its own connection pool, HTTP server and worker (on
 * `push`, polling briskly, with `settings` over the defaults), on a database it shares with others.
 * Fresh, so a second is not the first again; the fake providers come from outside, one pair for all.
 */
export const instanceWith =
  <E, R>(push: Layer.Layer<PushService, E, R>) =>
  (url: string, settings: Record<string, string> = {}) =>
    Layer.fresh(
      Layers.notificationsWorkerWith(push).pipe(
        Layer.provide(
          ConfigProvider.layer(
            ConfigProvider.fromUnknown({
              NOTIFICATIONS_POLL_INTERVAL: "20 millis",
              NOTIFICATIONS_BATCH_SIZE: "3",
              ...settings
            })
          )
        ),
        Layer.provideMerge(TestServerOn({ NOTIFICATIONS_WORKER: "off" })),
        Layer.provideMerge(PostgresClient.layer({ url: Redacted.make(url), dataDir: undefined, maxConnections: 5 })),
        Layer.provide(Reactivity.layer)
      )
    )

/** `instanceWith` the fake providers and the gateways' usual time-outs. */
export const instance = instanceWith(FakePush)
