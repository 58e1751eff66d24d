import { assert, describe, layer } from "@effect/vitest"
import { FakeApnsServer } from "@payments-gaming/adapters/test/support/FakeApnsServer"
import { FakeFcmServer, fcmError } from "@payments-gaming/adapters/test/support/FakeFcmServer"
import { TestDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import * as Layers from "@payments-gaming/composition/Layers"
import { ConfigProvider, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { request, TestServerOn, tokenFor } from "../../support/TestServer.ts"
import { apnsToken, FakeProviders, FakePush, fcmToken, PROJECT_ID } from "./FakePush.ts"
import { DEPOSIT_TEXT, deposit, depositBody, eventually, outboxOf, userWithDevices } from "./Scenario.ts"

/** The worker as every instance runs it, sending through the fakes, polling briskly. */
const Worker = Layers.notificationsWorkerWith(FakePush).pipe(
  Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ NOTIFICATIONS_POLL_INTERVAL: "50 millis" })))
)

// The HTTP app with its own worker off, so that every push goes through the fakes; the test's
// worker is the same layer the service runs, on the same database.
const Live = Worker.pipe(
  Layer.provideMerge(Layer.merge(TestServerOn({ NOTIFICATIONS_WORKER: "off" }), FakeProviders)),
  Layer.provideMerge(TestDatabase)
)

const allSent = (rows: ReadonlyArray<{ readonly status: string }>) =>
  rows.length > 0 && rows.every((row) => row.status === "sent")

describe("credit notifications through the outbox, on PostgreSQL, to fake FCM and APNs", () => {
  layer(Live, { timeout: "120 seconds", excludeTestServices: true })((it) => {
    it.effect("a signed deposit makes exactly one push per device, with the text and data of the deposit", () =>
      Effect.gen(function* () {
        const fcm = yield* FakeFcmServer
        const apns = yield* FakeApnsServer
        const tokens = { fcm: fcmToken("deposit"), apns: apnsToken() }
        const user = yield* userWithDevices([
          { tokenType: "FCM", token: tokens.fcm },
          { tokenType: "APNS", token: tokens.apns }
        ])
        const body = depositBody(user.accountNumber)
        yield* deposit(body)
        const rows = yield* eventually("both rows sent", outboxOf(user), allSent)
        assert.deepStrictEqual(
          rows.map((row) => [row.device_id, row.template_code, row.title, row.body, row.attempts]),
          user.deviceIds.map((id) => [id, "DEPOSIT_RECEIVED", DEPOSIT_TEXT.title, DEPOSIT_TEXT.body, 1])
        )
        const [fcmRow, apnsRow] = rows
        assert.deepStrictEqual(
          fcm.requestsFor(tokens.fcm).map((sent) => sent.body),
          [
            {
              message: {
                token: tokens.fcm,
                notification: DEPOSIT_TEXT,
                data: { notificationId: fcmRow!.id, templateCode: "DEPOSIT_RECEIVED" },
                // The notification's id is its collapse key: a repeated send shows once on the device.
                android: { collapse_key: fcmRow!.id, notification: { tag: fcmRow!.id } },
                apns: { headers: { "apns-collapse-id": fcmRow!.id } }
              }
            }
          ]
        )
        assert.match(fcmRow!.provider_message_id ?? "", new RegExp(`^projects/${PROJECT_ID}/messages/\\d+$`))
        const apnsSent = apns.requestsFor(tokens.apns)
        assert.strictEqual(apnsSent.length, 1)
        assert.deepStrictEqual(apnsSent[0]!.body, {
          aps: { alert: DEPOSIT_TEXT },
          notificationId: apnsRow!.id,
          templateCode: "DEPOSIT_RECEIVED"
        })
        assert.isNotNull(apnsRow!.provider_message_id)
        assert.strictEqual(apnsSent[0]!.headers["apns-collapse-id"], apnsRow!.id)
        // Each attempt is in the delivery log with its notification, device and the provider's answer.
        const sql = yield* SqlClient.SqlClient
        const logged = yield* sql<{
          notification_id: string
          device_id: string
          success: boolean
          provider_message_id: string
          collapse_key: string
          resend: boolean
        }>`SELECT notification_id, device_id, success, provider_message_id, collapse_key, resend
          FROM push_deliveries WHERE notification_id IN ${sql.in(rows.map((row) => row.id))} ORDER BY id`
        assert.deepStrictEqual(
          logged.toSorted((a, b) => user.deviceIds.indexOf(a.device_id) - user.deviceIds.indexOf(b.device_id)),
          rows.map((row) => ({
            notification_id: row.id,
            device_id: row.device_id,
            success: true,
            provider_message_id: row.provider_message_id!,
            collapse_key: row.id,
            resend: false
          }))
        )

        // The provider redelivers the same deposit: nothing is written, so nothing is pushed. A
        // second deposit afterwards is the barrier: once it is sent, anything older was too.
        yield* deposit(body)
        assert.strictEqual((yield* outboxOf(user)).length, 2)
        yield* deposit(depositBody(user.accountNumber))
        yield* eventually("the second deposit sent", outboxOf(user), (all) => all.length === 4 && allSent(all))
        assert.strictEqual(fcm.requestsFor(tokens.fcm).length, 2)
        assert.strictEqual(apns.requestsFor(tokens.apns).length, 2)
      })
    )

    it.effect("a 503 is retried after its backoff and the push is sent once", () =>
      Effect.gen(function* () {
        const fcm = yield* FakeFcmServer
        const token = fcmToken("busy")
        fcm.replyTo(token, fcmError(503, "UNAVAILABLE", "The service is currently unavailable.", "UNAVAILABLE"))
        const user = yield* userWithDevices([{ tokenType: "FCM", token }])
        yield* deposit(depositBody(user.accountNumber))
        const [failed] = yield* eventually("the first attempt recorded", outboxOf(user), (rows) =>
          rows.some((row) => row.attempts === 1)
        )
        assert.strictEqual(failed!.status, "pending", JSON.stringify([failed, fcm.requestsFor(token).length]))
        assert.match(failed!.last_error ?? "", /^UNAVAILABLE/)
        const refused = fcm.requestsFor(token).length
        fcm.replyTo(token, { status: 200, json: { name: `projects/${PROJECT_ID}/messages/after-503` } })
        const [sent] = yield* eventually("sent after the retry", outboxOf(user), allSent)
        assert.strictEqual(sent!.attempts, 2)
        assert.strictEqual(sent!.provider_message_id, `projects/${PROJECT_ID}/messages/after-503`)
        // Every request before the switch was refused; exactly one after it was accepted.
        assert.strictEqual(fcm.requestsFor(token).length, refused + 1)
        const sql = yield* SqlClient.SqlClient
        const accepted = yield* sql<{ n: number }>`SELECT count(*)::integer AS n FROM push_deliveries
          WHERE token_last8 = ${token.slice(-8)} AND success AND provider_message_id = ${sent!.provider_message_id}`
        assert.strictEqual(accepted[0]!.n, 1)
      })
    )

    it.effect("an unregistered token deactivates its device, and the next deposit skips it", () =>
      Effect.gen(function* () {
        const apns = yield* FakeApnsServer
        const fcm = yield* FakeFcmServer
        const dead = apnsToken()
        const alive = fcmToken("alive")
        apns.replyTo(dead, { status: 410, reason: "Unregistered", timestamp: 1_700_000_000_000 })
        const user = yield* userWithDevices([
          { tokenType: "APNS", token: dead },
          { tokenType: "FCM", token: alive }
        ])
        yield* deposit(depositBody(user.accountNumber))
        const rows = yield* eventually(
          "both rows finished",
          outboxOf(user),
          (all) => all.length === 2 && all.every((row) => row.status !== "pending")
        )
        assert.deepStrictEqual(
          rows.map((row) => [row.device_id, row.status]),
          [
            [user.deviceIds[0], "cancelled"],
            [user.deviceIds[1], "sent"]
          ]
        )
        const listed = yield* request("/v1/user/devices", { token: user.bearer })
        assert.deepStrictEqual(
          listed.json.data.map((device: { deviceId: string }) => device.deviceId),
          [user.deviceIds[1]]
        )
        const sql = yield* SqlClient.SqlClient
        const [device] = yield* sql<{ active: boolean; deactivation_reason: string | null }>`
          SELECT active, deactivation_reason FROM user_devices WHERE id = ${user.deviceIds[0]!}::uuid`
        assert.isFalse(device!.active)
        assert.match(device!.deactivation_reason ?? "", /^UNREGISTERED/)

        yield* deposit(depositBody(user.accountNumber))
        const after = yield* eventually(
          "the next deposit sent",
          outboxOf(user),
          (all) => all.length === 3 && all.every((row) => row.status !== "pending")
        )
        assert.strictEqual(after[2]!.device_id, user.deviceIds[1])
        assert.strictEqual(apns.requestsFor(dead).length, 1)
        assert.strictEqual(fcm.requestsFor(alive).length, 2)
      })
    )

    it.effect("operators list a parked notification, retry it over the admin API, and the metrics show the sends", () =>
      Effect.gen(function* () {
        const fcm = yield* FakeFcmServer
        const token = fcmToken("parked")
        // A refusal no retry fixes (the provider rejects our credentials): parked at once.
        fcm.replyTo(
          token,
          fcmError(401, "UNAUTHENTICATED", "Auth error from APNS or Web Push Service", "THIRD_PARTY_AUTH_ERROR")
        )
        const user = yield* userWithDevices([{ tokenType: "FCM", token }])
        yield* deposit(depositBody(user.accountNumber))
        const [parked] = yield* eventually("parked as failed", outboxOf(user), (rows) => rows[0]?.status === "failed")
        assert.strictEqual(parked!.attempts, 1)
        assert.match(parked!.last_error ?? "", /^AUTH_ERROR/)

        const admin = yield* tokenFor("ops", ["admin"])
        const listed = yield* request("/v1/admin/notifications?status=failed&limit=200", { token: admin })
        assert.strictEqual(listed.status, 200, listed.text)
        const view = listed.json.data.find((row: { id: string }) => row.id === parked!.id)
        assert.deepInclude(view, { status: "failed", userId: user.userId, templateCode: "DEPOSIT_RECEIVED" })
        assert.notInclude(listed.text, token)
        assert.strictEqual((yield* request("/v1/admin/notifications?status=lost", { token: admin })).status, 400)
        assert.strictEqual(
          (yield* request("/v1/admin/notifications", { token: yield* tokenFor(user.userId) })).status,
          403
        )

        // The credentials are fixed; the operator sends it again.
        fcm.replyTo(token, { status: 200, json: { name: `projects/${PROJECT_ID}/messages/retried` } })
        const retried = yield* request(`/v1/admin/notifications/${parked!.id}/retry`, { method: "POST", token: admin })
        assert.strictEqual(retried.status, 200, retried.text)
        assert.deepStrictEqual(retried.json.data, { id: parked!.id, retried: true, status: "pending" })
        const [sent] = yield* eventually("sent after the retry", outboxOf(user), allSent)
        assert.strictEqual(sent!.provider_message_id, `projects/${PROJECT_ID}/messages/retried`)
        const again = yield* request(`/v1/admin/notifications/${parked!.id}/retry`, { method: "POST", token: admin })
        assert.deepStrictEqual(again.json.data, { id: parked!.id, retried: false, status: "sent" })
        // Both attempts are listed with the provider's answers; neither was a resend.
        const afterRetry = yield* request("/v1/admin/notifications?status=sent&limit=200", { token: admin })
        const sentView = afterRetry.json.data.find((row: { id: string }) => row.id === parked!.id)
        assert.deepInclude(sentView, { attempts: 1, resends: 0, inDoubt: false, unconfirmed: false })
        assert.deepStrictEqual(
          sentView.deliveries.map((delivery: Record<string, unknown>) => [
            delivery.success,
            delivery.errorCode,
            delivery.providerMessageId,
            delivery.collapseKey,
            delivery.resend
          ]),
          [
            [false, "AUTH_ERROR", null, parked!.id, false],
            [true, null, `projects/${PROJECT_ID}/messages/retried`, parked!.id, false]
          ]
        )
        const unknown = "00000000-0000-4000-8000-000000000000"
        assert.strictEqual(
          (yield* request(`/v1/admin/notifications/${unknown}/retry`, { method: "POST", token: admin })).status,
          404
        )
        assert.strictEqual(
          (yield* request("/v1/admin/notifications/nope/retry", { method: "POST", token: admin })).status,
          400
        )
        const byStatus = yield* request("/v1/admin/notifications/retry", {
          method: "POST",
          token: admin,
          body: { status: "failed" }
        })
        assert.strictEqual(byStatus.status, 200, byStatus.text)
        assert.isArray(byStatus.json.data)
        assert.strictEqual(
          (yield* request("/v1/admin/notifications/retry", { method: "POST", token: admin, body: { status: "sent" } }))
            .status,
          400
        )

        const metrics = (yield* request("/metrics")).text
        assert.match(metrics, /notification_sends_total\{[^}]*outcome="sent"[^}]*\} [1-9]/)
        assert.match(metrics, /notification_sends_total\{[^}]*outcome="failed"[^}]*\} [1-9]/)
        assert.match(metrics, /notification_outbox_depth(\{[^}]*\})? \d/)
        assert.match(metrics, /notification_resends_total(\{[^}]*\})? \d/)
        assert.match(metrics, /notification_outbox_oldest_due_seconds(\{[^}]*\})? \d/)
      })
    )

    it.effect("a spin's cash or coin prize is announced once per device; a spin that wins nothing is not", () =>
      Effect.gen(function* () {
        const fcm = yield* FakeFcmServer
        const token = fcmToken("spinner")
        const user = yield* userWithDevices([{ tokenType: "FCM", token }])
        const spun = yield* request("/v1/spin-and-win/spin", { method: "POST", token: user.bearer, body: {} })
        assert.strictEqual(spun.status, 200, spun.text)
        const segment: { type: "cash" | "coin"; value: number } = spun.json.data.segment
        if (segment.value === 0) {
          assert.deepStrictEqual(yield* outboxOf(user), [])
          return
        }
        const [row] = yield* eventually("the prize announced", outboxOf(user), allSent)
        const won =
          segment.type === "coin"
            ? `${segment.value.toLocaleString("en-US")} coin${segment.value === 1 ? "" : "s"}`
            : `₦${segment.value.toLocaleString("en-US")}.00`
        assert.deepInclude(row, {
          template_code: "SPIN_PRIZE_WON",
          title: "You won a prize",
          body: `You won ${won} on Spin and Win`
        })
        assert.strictEqual(row!.event_key, spun.headers.get("x-spin-id"))
        assert.strictEqual(fcm.requestsFor(token).length, 1)
      })
    )
  })
})
