import { assert, describe, it } from "@effect/vitest"
import { FakeFcmServer } from "@payments-gaming/adapters/test/support/FakeFcmServer"
import { clientFor } from "@payments-gaming/adapters/test/support/TestDatabase"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { inject } from "vitest"
import { FakeProviders, fcmToken } from "./FakePush.ts"
import { instance, migratedDatabase } from "./Instance.ts"
import { deposit, depositBody, depositUntilTaken, eventually, userWithDevices } from "./Scenario.ts"

describe("two service instances on one database", () => {
  it.live(
    "send each notification exactly once",
    () =>
      Effect.gen(function* () {
        // The embedded database serves one connection: there is no second process to run.
        if (inject("databaseMode") === "pglite") return
        const url = yield* migratedDatabase
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
  it.live(
    "connections terminated while both deliver: every notification sent, none twice",
    () =>
      Effect.gen(function* () {
        if (inject("databaseMode") === "pglite") return
        const url = yield* migratedDatabase
        const fakes = yield* Layer.build(FakeProviders)
        const fcm = yield* Effect.provideContext(Effect.service(FakeFcmServer), fakes)
        // A short lease: a row whose outcome was lost would be sent again within the test.
        const settings = { NOTIFICATIONS_LEASE: "3 seconds" }
        const instances = [
          yield* Layer.build(instance(url, settings).pipe(Layer.provide(Layer.succeedContext(fakes)))),
          yield* Layer.build(instance(url, settings).pipe(Layer.provide(Layer.succeedContext(fakes))))
        ]
        const users = yield* Effect.forEach(
          Array.from({ length: 16 }, (_, i) => i),
          (i) =>
            Effect.gen(function* () {
              const token = fcmToken(`cut${i}`)
              // A provider that takes its time: terminations land while sends are in flight and
              // their outcomes are being written.
              fcm.replyTo(token, { afterMillis: 150 })
              const user = yield* Effect.provideContext(
                userWithDevices([{ tokenType: "FCM", token }]),
                instances[i % 2]!
              )
              return { ...user, token }
            })
        )
        const admin = yield* clientFor(url)
        // Every connection of both instances, killed as the provider is called: whatever each was
        // doing (claiming, marking, recording) is lost mid-statement.
        const terminate = admin`SELECT count(pg_terminate_backend(pid))::integer AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`
        const load = Effect.forEach(
          users,
          (user, i) =>
            Effect.provideContext(depositUntilTaken(depositBody(user.accountNumber)), instances[(i + 1) % 2]!),
          { concurrency: 4 }
        )
        const cuts = Effect.forEach(
          [1, 2, 3, 4],
          (n) =>
            Effect.gen(function* () {
              yield* eventually(
                `${n * 3} sends under way`,
                Effect.sync(() => users.filter((u) => fcm.requestsFor(u.token).length > 0).length),
                (sent) => sent >= Math.min(n * 3, users.length)
              )
              yield* terminate
            }),
          { discard: true }
        )
        yield* Effect.all([load, cuts], { concurrency: 2 })
        const rows = yield* eventually(
          "every row sent",
          admin<{
            id: string
            status: string
            resends: number
            device_id: string
          }>`SELECT id, status, resends, device_id FROM notification_outbox`,
          (all) => all.length === users.length && all.every((row) => row.status === "sent"),
          "60 seconds"
        )
        assert.strictEqual(rows.length, 16)
        // No process died: the provider got each notification once, and nothing counts as a resend.
        assert.deepStrictEqual(
          users.map((user) => fcm.requestsFor(user.token).length),
          users.map(() => 1)
        )
        assert.deepStrictEqual(
          rows.map((row) => row.resends),
          rows.map(() => 0)
        )
      }).pipe(Effect.scoped),
    120_000
  )
})
