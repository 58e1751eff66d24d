import { assert, describe, it } from "@effect/vitest"
import { FakeFcmServer } from "@payments-gaming/adapters/test/support/FakeFcmServer"
import { clientFor } from "@payments-gaming/adapters/test/support/TestDatabase"
import { NotificationView } from "@payments-gaming/domain/notifications"
import { Deferred, Effect, Fiber, Layer, Schema } from "effect"
import { inject } from "vitest"
import { request, tokenFor } from "../support/TestServer.ts"
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
})
