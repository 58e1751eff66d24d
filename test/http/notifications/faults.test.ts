import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { FakeFcmServer } from "@payments-gaming/adapters/test/support/FakeFcmServer"
import { clientFor } from "@payments-gaming/adapters/test/support/TestDatabase"
import { NotificationView } from "@payments-gaming/domain/notifications"
import { Deferred, Effect, Fiber, Layer, Schema } from "effect"
import { inject } from "vitest"
import { spawnNode } from "../../support/NodeProcess.ts"
import { request, tokenFor } from "../../support/TestServer.ts"
import { FakeProviders, fakePushWith, fcmToken, PROJECT_ID } from "./FakePush.ts"
import { instance, instanceWith, migratedDatabase } from "./Instance.ts"
import { deposit, depositBody, eventually, userWithDevices } from "./Scenario.ts"

interface FcmBody {
  readonly message: {
    readonly data?: { readonly notificationId?: string }
    readonly android?: { readonly collapse_key?: string }
    readonly apns?: { readonly headers?: Record<string, string> }
  }
}

/** The notification id and collapse keys of every request FCM received for `token`, in order. */
const sentTo = (fcm: FakeFcmServer["Service"], token: string) =>
  fcm.requestsFor(token).map((request) => {
    const { message } = request.body as FcmBody
    return {
      notificationId: message.data?.notificationId,
      collapseKey: message.android?.collapse_key,
      apnsCollapseId: message.apns?.headers?.["apns-collapse-id"]
    }
  })

const WORKER = fileURLToPath(new URL("./workerProcess.ts", import.meta.url))

const decodeViews = Schema.decodeUnknownSync(Schema.Array(NotificationView))

/** A user's outbox rows with what operators see of them (the admin API). */
const viewsOf = (userId: string) =>
  Effect.gen(function* () {
    const listed = yield* request("/v1/admin/notifications?limit=200", { token: yield* tokenFor("ops", ["admin"]) })
    assert.strictEqual(listed.status, 200, listed.text)
    return decodeViews(listed.json.data).filter((row) => row.userId === userId)
  })

// pg_terminate_backend and several pools on one database need a real PostgreSQL server.
describe.runIf(inject("databaseMode") === "postgres")("notifications under faults, on the wire to a fake FCM", () => {
  it.live(
    "the worker's record is terminated while it waits for a row lock: the push was sent once (issue 29)",
    () =>
      Effect.gen(function* () {
        const url = yield* migratedDatabase
        const fakes = yield* Layer.build(FakeProviders)
        const fcm = yield* Effect.provideContext(Effect.service(FakeFcmServer), fakes)
        // A short lease: were the row made due again by mistake, the second send would come in the test.
        const service = yield* Layer.build(
          instance(url, { NOTIFICATIONS_LEASE: "3 seconds" }).pipe(Layer.provide(Layer.succeedContext(fakes)))
        )
        const token = fcmToken("locked")
        const user = yield* Effect.provideContext(userWithDevices([{ tokenType: "FCM", token }]), service)
        // 1. The worker claims the row; FCM answers after 3 s.
        fcm.replyTo(token, { afterMillis: 3_000 })
        yield* Effect.provideContext(deposit(depositBody(user.accountNumber)), service)
        yield* eventually(
          "FCM called",
          Effect.sync(() => fcm.requestsFor(token).length),
          (n) => n === 1
        )
        fcm.replyTo(token, { status: 200, json: { name: `projects/${PROJECT_ID}/messages/quick` } })

        // 2. A second connection holds the row FOR UPDATE, so the worker's record waits for it.
        const holder = yield* clientFor(url)
        const admin = yield* clientFor(url)
        const locked = yield* Deferred.make<void>()
        const unlock = yield* Deferred.make<void>()
        const holding = yield* Effect.forkChild(
          holder.withTransaction(
            Effect.gen(function* () {
              yield* holder`SELECT id FROM notification_outbox WHERE user_id = ${user.userId} FOR UPDATE`
              yield* Deferred.succeed(locked, undefined)
              yield* Deferred.await(unlock)
            })
          )
        )
        yield* Deferred.await(locked)
        // 3. The worker's waiting UPDATE is terminated (once FCM has answered and it tries to record).
        const [waiting] = yield* eventually(
          "the worker's record waiting for the lock",
          admin<{ pid: number }>`SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'
              AND query LIKE 'UPDATE notification_outbox%'`,
          (rows) => rows.length > 0
        )
        yield* admin`SELECT pg_terminate_backend(${waiting!.pid})`
        yield* Deferred.succeed(unlock, undefined)
        yield* Fiber.join(holding)

        // 4. The record is written on a fresh connection: sent, once.
        const [row] = yield* eventually(
          "the row sent",
          admin<{ id: string; status: string; attempts: number; resends: number }>`
            SELECT id, status, attempts, resends FROM notification_outbox WHERE user_id = ${user.userId}`,
          (rows) => rows[0]?.status === "sent"
        )
        assert.deepStrictEqual([row!.attempts, row!.resends], [1, 0])
        // A sent row is never claimed again; a duplicate (the row released as unsent) would have
        // left before it was recorded. The second deposit is the barrier for anything in flight.
        yield* Effect.provideContext(deposit(depositBody(user.accountNumber)), service)
        yield* eventually(
          "the second deposit sent",
          admin<{ status: string }>`SELECT status FROM notification_outbox WHERE user_id = ${user.userId}`,
          (rows) => rows.length === 2 && rows.every((r) => r.status === "sent")
        )
        const sent = sentTo(fcm, token)
        assert.strictEqual(sent.length, 2)
        assert.deepStrictEqual(sent[0], { notificationId: row!.id, collapseKey: row!.id, apnsCollapseId: row!.id })
        assert.notStrictEqual(sent[1]!.notificationId, row!.id)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a provider slower than the gateway's time-out: the send is repeated once, with the same collapse key, and counted",
    () =>
      Effect.gen(function* () {
        const url = yield* migratedDatabase
        const fakes = yield* Layer.build(FakeProviders)
        const fcm = yield* Effect.provideContext(Effect.service(FakeFcmServer), fakes)
        const slow = instanceWith(fakePushWith({ timeout: "1 second" }))
        const service = yield* Layer.build(slow(url).pipe(Layer.provide(Layer.succeedContext(fakes))))
        const token = fcmToken("slow")
        const user = yield* Effect.provideContext(userWithDevices([{ tokenType: "FCM", token }]), service)
        // FCM accepts, but answers after the gateway has given up.
        fcm.replyTo(token, { afterMillis: 1_500 })
        yield* Effect.provideContext(deposit(depositBody(user.accountNumber)), service)
        yield* eventually(
          "FCM called",
          Effect.sync(() => fcm.requestsFor(token).length),
          (n) => n === 1
        )
        fcm.replyTo(token, { status: 200, json: { name: `projects/${PROJECT_ID}/messages/second` } })
        const [view] = yield* eventually(
          "sent on the second attempt",
          Effect.provideContext(viewsOf(user.userId), service),
          (rows) => rows[0]?.status === "sent",
          "30 seconds"
        )
        const sent = sentTo(fcm, token)
        assert.deepStrictEqual(
          sent,
          [view!.id, view!.id].map((id) => ({ notificationId: id, collapseKey: id, apnsCollapseId: id }))
        )
        assert.deepInclude(view, { attempts: 2, resends: 1, inDoubt: true, unconfirmed: false })
        assert.deepStrictEqual(
          view!.deliveries.map((d) => [d.success, d.errorCode, d.collapseKey, d.resend]),
          [
            [false, "TIMEOUT", view!.id, false],
            [true, null, view!.id, true]
          ]
        )
        const metrics = (yield* Effect.provideContext(request("/metrics"), service)).text
        assert.match(metrics, /notification_resends_total(\{[^}]*\})? [1-9]/)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "an outage longer than the retry budget parks the row as failed; a retry sends it once",
    () =>
      Effect.gen(function* () {
        const url = yield* migratedDatabase
        const fakes = yield* Layer.build(FakeProviders)
        const fcm = yield* Effect.provideContext(Effect.service(FakeFcmServer), fakes)
        const service = yield* Layer.build(
          instance(url, { NOTIFICATIONS_MAX_ATTEMPTS: "2" }).pipe(Layer.provide(Layer.succeedContext(fakes)))
        )
        const token = fcmToken("outage")
        const user = yield* Effect.provideContext(userWithDevices([{ tokenType: "FCM", token }]), service)
        // FCM is down (500 INTERNAL, retryable) for longer than two attempts take.
        fcm.replyTo(token, { status: 500, json: { error: { code: 500, message: "down", status: "INTERNAL" } } })
        yield* Effect.provideContext(deposit(depositBody(user.accountNumber)), service)
        const [parked] = yield* eventually(
          "parked as failed",
          Effect.provideContext(viewsOf(user.userId), service),
          (rows) => rows[0]?.status === "failed",
          "30 seconds"
        )
        assert.strictEqual(parked!.attempts, 2)
        assert.match(parked!.lastError ?? "", /gave up after 2 attempts/)
        const during = fcm.requestsFor(token).length

        // FCM is back; the operator sends the parked notifications again.
        fcm.replyTo(token, { status: 200, json: { name: `projects/${PROJECT_ID}/messages/after-outage` } })
        const retried = yield* Effect.provideContext(
          request("/v1/admin/notifications/retry", {
            method: "POST",
            token: yield* tokenFor("ops", ["admin"]),
            body: { status: "failed" }
          }),
          service
        )
        assert.deepStrictEqual(retried.json.data, [{ id: parked!.id, retried: true, status: "pending" }])
        const [sent] = yield* eventually(
          "sent after the retry",
          Effect.provideContext(viewsOf(user.userId), service),
          (rows) => rows[0]?.status === "sent"
        )
        assert.strictEqual(sent!.providerMessageId, `projects/${PROJECT_ID}/messages/after-outage`)
        // Once: one more request, carrying the notification's collapse key.
        const after = sentTo(fcm, token).slice(during)
        assert.deepStrictEqual(after, [
          { notificationId: parked!.id, collapseKey: parked!.id, apnsCollapseId: parked!.id }
        ])
      }).pipe(Effect.scoped),
    60_000
  )
  it.live(
    "a worker SIGKILLed mid-send: the next one sends those again with the same collapse key, counted; nothing lost",
    () =>
      Effect.gen(function* () {
        const url = yield* migratedDatabase
        const fakes = yield* Layer.build(FakeProviders)
        const fcm = yield* Effect.provideContext(Effect.service(FakeFcmServer), fakes)
        // The HTTP side only (devices, deposits, the admin API); workers run as processes.
        const service = yield* Layer.build(
          instance(url, { NOTIFICATIONS_WORKER: "off" }).pipe(Layer.provide(Layer.succeedContext(fakes)))
        )
        const users = yield* Effect.forEach(
          Array.from({ length: 8 }, (_, i) => i),
          (i) =>
            Effect.gen(function* () {
              const token = fcmToken(`killed${i}`)
              // Half of them are still waiting for FCM's answer when the worker dies.
              if (i % 2 === 0) fcm.replyTo(token, "hang")
              const user = yield* Effect.provideContext(userWithDevices([{ tokenType: "FCM", token }]), service)
              yield* Effect.provideContext(deposit(depositBody(user.accountNumber)), service)
              return { ...user, token, answered: i % 2 === 1 }
            })
        )
        const workerEnv = {
          DATABASE_URL: url,
          FAKE_FCM_PORT: String(fcm.port),
          FAKE_FCM_CA_PEM: fcm.certificates.caPem,
          NOTIFICATIONS_LEASE: "2 seconds",
          NOTIFICATIONS_POLL_INTERVAL: "50 millis",
          LOG_LEVEL: "warn"
        }
        const admin = yield* clientFor(url)
        const rows = admin<{ id: string; user_id: string; status: string; attempts: number; resends: number }>`
          SELECT id, user_id, status, attempts, resends FROM notification_outbox`

        const first = yield* spawnNode(WORKER, [], workerEnv)
        yield* first.waitForStdout(/worker ready/, 30_000)
        yield* eventually(
          "every push on the wire, the answered ones recorded",
          Effect.map(rows, (all) => ({
            called: users.every((user) => fcm.requestsFor(user.token).length === 1),
            sent: all.filter((row) => row.status === "sent").length
          })),
          ({ called, sent }) => called && sent === 4
        )
        yield* first.kill("SIGKILL")
        yield* first.exit(10_000)

        // FCM answers again; a new worker takes the unconfirmed rows once their lease has run out.
        for (const user of users)
          fcm.replyTo(user.token, { status: 200, json: { name: `projects/${PROJECT_ID}/messages/again` } })
        const second = yield* spawnNode(WORKER, [], workerEnv)
        yield* second.waitForStdout(/worker ready/, 30_000)
        const done = yield* eventually(
          "every row sent",
          rows,
          (all) => all.length === users.length && all.every((row) => row.status === "sent"),
          "30 seconds"
        )

        for (const user of users) {
          const row = done.find((r) => r.user_id === user.userId)!
          const sent = sentTo(fcm, user.token)
          // Nothing lost; a repeat only of what may have reached FCM, and always with the same key.
          assert.deepStrictEqual(
            sent,
            Array.from({ length: user.answered ? 1 : 2 }, () => ({
              notificationId: row.id,
              collapseKey: row.id,
              apnsCollapseId: row.id
            }))
          )
          assert.deepStrictEqual([row.attempts, row.resends], user.answered ? [1, 0] : [2, 1])
        }
        // What an operator sees of a repeated send: the resend, and the one recorded delivery marked as such.
        const resent = users.find((user) => !user.answered)!
        const [view] = yield* Effect.provideContext(viewsOf(resent.userId), service)
        assert.deepInclude(view, { status: "sent", attempts: 2, resends: 1, inDoubt: true, unconfirmed: false })
        assert.deepStrictEqual(
          view!.deliveries.map((d) => [d.success, d.collapseKey, d.resend]),
          [[true, view!.id, true]]
        )
      }).pipe(Effect.scoped),
    90_000
  )
})
