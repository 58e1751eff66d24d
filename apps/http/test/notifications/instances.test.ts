import { assert, describe, it } from "@effect/vitest"
import { runMigrations } from "@payments-gaming/adapters/postgres/Migrations"
import * as PostgresClient from "@payments-gaming/adapters/postgres/PostgresClient"
import { FakeFcmServer } from "@payments-gaming/adapters/test/support/FakeFcmServer"
import { freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import * as Layers from "@payments-gaming/http/Layers"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { SqlClient } from "effect/sql"
import { inject } from "vitest"
import { TestServerOn } from "../support/TestServer.ts"
import { FakeProviders, FakePush, fcmToken } from "./FakePush.ts"
import { deposit, depositBody, eventually, userWithDevices } from "./Scenario.ts"

/**
 * One service instance as a process has it: its own connection pool, HTTP server and worker (on
 * the fakes, polling briskly), on a database it shares with the other. Fresh, so the second is
 * not the first again; the fake providers come from outside, one pair for both.
 */
const instance = (url: string) =>
  Layer.fresh(
    Layers.notificationsWorkerWith(FakePush).pipe(
      Layer.provide(
        ConfigProvider.layer(
          ConfigProvider.fromUnknown({ NOTIFICATIONS_POLL_INTERVAL: "20 millis", NOTIFICATIONS_BATCH_SIZE: "3" })
        )
      ),
      Layer.provideMerge(TestServerOn({ NOTIFICATIONS_WORKER: "off" })),
      Layer.provideMerge(PostgresClient.layer({ url: Redacted.make(url), dataDir: undefined, maxConnections: 5 })),
      Layer.provide(Reactivity.layer)
    )
  )

describe("two service instances on one database", () => {
  it.live(
    "send each notification exactly once",
    () =>
      Effect.gen(function* () {
        // The embedded database serves one connection: there is no second process to run.
        if (inject("databaseMode") === "pglite") return
        const url = yield* freshDatabaseUrl.pipe(Effect.provide(Reactivity.layer))
        yield* Effect.provide(
          runMigrations,
          yield* Layer.build(
            PostgresClient.layer({ url: Redacted.make(url), dataDir: undefined, maxConnections: 1 }).pipe(
              Layer.provide(Reactivity.layer)
            )
          )
        )
        const fakes = yield* Layer.build(FakeProviders)
        const first = yield* Layer.build(instance(url).pipe(Layer.provide(Layer.succeedContext(fakes))))
        const second = yield* Layer.build(instance(url).pipe(Layer.provide(Layer.succeedContext(fakes))))

        const users = yield* Effect.forEach(
          Array.from({ length: 12 }, (_, i) => i),
          (i) =>
            Effect.provideContext(
              userWithDevices([{ tokenType: "FCM", token: fcmToken(`twice${i}`) }]),
              i % 2 === 0 ? first : second
            )
        )
        // Both instances take deposits, and both workers poll the same rows.
        yield* Effect.forEach(
          users,
          (user, i) => Effect.provideContext(deposit(depositBody(user.accountNumber)), i % 2 === 0 ? second : first),
          { concurrency: 4 }
        )
        const sql = yield* Effect.provideContext(Effect.service(SqlClient.SqlClient), first)
        const rows = yield* eventually(
          "every row sent",
          sql<{ status: string; device_id: string }>`SELECT status, device_id FROM notification_outbox`,
          (all) => all.length === users.length && all.every((row) => row.status === "sent")
        )
        assert.strictEqual(rows.length, 12)
        const tokens = yield* sql<{ token: string }>`SELECT token FROM user_devices`
        const fcm = yield* Effect.provideContext(Effect.service(FakeFcmServer), fakes)
        assert.deepStrictEqual(
          tokens.map(({ token }) => fcm.requestsFor(token).length),
          tokens.map(() => 1)
        )
        const attempts = yield* sql<{ n: number }>`SELECT count(*)::integer AS n FROM push_deliveries`
        assert.strictEqual(attempts[0]!.n, 12)
      }).pipe(Effect.scoped),
    90_000
  )
})
