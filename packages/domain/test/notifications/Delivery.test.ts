import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer, Metric, Redacted, Scope } from "effect"
import { TestClock } from "effect/testing"
import type { UserId } from "../../src/auth/Model.ts"
import { BankingService } from "../../src/banking/index.ts"
import { layerMemory as layerMemoryBanking } from "../../src/banking/testing.ts"
import { Devices } from "../../src/devices/index.ts"
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  NotificationDelivery,
  NotificationOutbox,
  NotificationSettings,
  NotificationsService,
  NotificationWorker,
  notificationResends
} from "../../src/notifications/index.ts"
import { NotificationsMemory } from "../../src/notifications/testing.ts"
import { failure, PushService, success } from "../../src/push/index.ts"
import { layerMemory as layerMemoryPush, PushGatewaysFake } from "../../src/push/testing.ts"
import { bytes, credit, unique } from "../support/fixtures.ts"

const settings = NotificationSettings.layer({
  ...DEFAULT_NOTIFICATION_SETTINGS,
  backoff: { baseMillis: 2_000, capMillis: 60_000, maxAttempts: 3 }
})

/** While set, the outbox cannot record an outcome (the database is gone for longer than its retries). */
let recordsLost = false

/** The memory outbox, but `record` dies while `recordsLost` is set. */
const LosingRecords = Layer.effect(
  NotificationOutbox,
  Effect.map(Effect.service(NotificationOutbox), (outbox) =>
    NotificationOutbox.of({
      ...outbox,
      record: (notification, outcome, facts) =>
        recordsLost ? Effect.die(new Error("connection lost")) : outbox.record(notification, outcome, facts)
    })
  )
)

const TestLayer = Layer.mergeAll(
  NotificationDelivery.layer.pipe(Layer.provide(LosingRecords)),
  NotificationsService.layer
).pipe(
  Layer.provideMerge(
    Layer.mergeAll(layerMemoryBanking, PushService.layer.pipe(Layer.provideMerge(layerMemoryPush)), settings)
  )
)

const fcmToken = (label: string) => `${label}:${"f".repeat(70)}`
const apnsToken = (digit: string) => digit.repeat(64)

const receive = (payload: unknown) =>
  Effect.flatMap(Effect.service(BankingService), (banking) =>
    banking.receive({ rawBody: bytes(payload), signature: "sig", receivedAt: new Date() })
  )

/** A user with a linked NGN account and the given devices registered. */
const userWithDevices = (tokens: ReadonlyArray<{ readonly tokenType: "FCM" | "APNS"; readonly token: string }>) =>
  Effect.gen(function* () {
    const banking = yield* BankingService
    const devices = yield* Devices
    const userId = unique("user") as UserId
    const accountNumber = unique("VA")
    yield* banking.linkVirtualAccount(accountNumber, { userId, currency: "NGN" })
    const ids: Array<string> = []
    for (const { tokenType, token } of tokens) {
      ids.push(
        (yield* devices.register(userId, { tokenType, token: Redacted.make(token), platform: null })).device.deviceId
      )
    }
    return { userId, accountNumber, deviceIds: ids }
  })

const rowsOf = (userId: string) =>
  Effect.map(Effect.service(NotificationsMemory), (memory) => memory.rows).pipe(
    Effect.flatten,
    Effect.map((rows) => rows.filter((row) => row.userId === userId))
  )

const deliver = Effect.flatMap(Effect.service(NotificationDelivery), (delivery) => delivery.deliverDue)

describe("the notification outbox in memory", () => {
  layer(TestLayer)((it) => {
    it.effect("a credited deposit writes one row per active device, once, however often it is delivered", () =>
      Effect.gen(function* () {
        const user = yield* userWithDevices([
          { tokenType: "FCM", token: fcmToken("a") },
          { tokenType: "APNS", token: apnsToken("a") }
        ])
        const other = yield* userWithDevices([{ tokenType: "FCM", token: fcmToken("other") }])
        const payload = credit({
          reference: unique("VA-REF"),
          accountNumber: user.accountNumber,
          data: { sender_account_name: "JOHN DOE" }
        })
        assert.strictEqual((yield* receive(payload)).outcome, "processed")
        assert.strictEqual((yield* receive(payload)).outcome, "duplicate")
        const rows = yield* rowsOf(user.userId)
        assert.deepStrictEqual(
          rows.map((row) => [row.deviceId, row.templateCode, row.body, row.status]),
          user.deviceIds.map((id) => [id, "DEPOSIT_RECEIVED", "You received ₦4,950.50 from JOHN DOE", "pending"])
        )
        assert.deepStrictEqual(yield* rowsOf(other.userId), [])
      })
    )

    it.effect("an unmatched credit notifies nobody until its replay credits it, and then once", () =>
      Effect.gen(function* () {
        const banking = yield* BankingService
        const devices = yield* Devices
        const userId = unique("user") as UserId
        yield* devices.register(userId, { tokenType: "FCM", token: Redacted.make(fcmToken("replay")), platform: null })
        const accountNumber = unique("VA")
        const stored = yield* receive(credit({ reference: unique("VA-REF"), accountNumber }))
        assert.strictEqual(stored.outcome, "unmatched")
        assert.deepStrictEqual(yield* rowsOf(userId), [])
        yield* banking.linkVirtualAccount(accountNumber, { userId, currency: "NGN" })
        assert.strictEqual((yield* banking.replay(stored.eventId)).outcome, "processed")
        yield* banking.replay(stored.eventId)
        assert.strictEqual((yield* rowsOf(userId)).length, 1)
      })
    )

    it.effect("delivers each row to its device with notificationId and templateCode, and records the message id", () =>
      Effect.gen(function* () {
        const user = yield* userWithDevices([{ tokenType: "APNS", token: apnsToken("b") }])
        yield* receive(credit({ reference: unique("VA-REF"), accountNumber: user.accountNumber }))
        const [row] = yield* rowsOf(user.userId)
        yield* deliver
        const fake = yield* PushGatewaysFake
        const sent = (yield* fake.sent).filter((send) => send.token === apnsToken("b"))
        assert.deepStrictEqual(
          sent.map((send) => send.notification),
          [
            {
              title: "Money received",
              body: "You received ₦4,950.50 from ADA OKAFOR",
              data: { notificationId: row!.id, templateCode: "DEPOSIT_RECEIVED" },
              collapseKey: row!.id
            }
          ]
        )
        const [after] = yield* rowsOf(user.userId)
        assert.strictEqual(after!.status, "sent")
        assert.strictEqual(after!.attempts, 1)
        assert.match(after!.providerMessageId ?? "", /^fake-\d+$/)
        yield* deliver
        assert.strictEqual((yield* fake.sent).filter((send) => send.token === apnsToken("b")).length, 1)
      })
    )

    it.effect("a send the provider did not answer in time is sent again as a resend, with the same collapse key", () =>
      Effect.gen(function* () {
        const fake = yield* PushGatewaysFake
        const token = fcmToken("slow")
        const user = yield* userWithDevices([{ tokenType: "FCM", token }])
        yield* receive(credit({ reference: unique("VA-REF"), accountNumber: user.accountNumber }))
        const resends = yield* Metric.value(notificationResends)
        yield* fake.answerNext("FCM", { result: failure("TIMEOUT", "FCM did not answer within 10 seconds") })
        yield* deliver
        const [timedOut] = yield* rowsOf(user.userId)
        assert.deepStrictEqual([timedOut!.inDoubt, timedOut!.resends], [true, 0])
        yield* TestClock.adjust(Duration.seconds(2))
        yield* deliver
        const [row] = yield* rowsOf(user.userId)
        assert.deepStrictEqual([row!.status, row!.attempts, row!.resends], ["sent", 2, 1])
        const sent = (yield* fake.sent).filter((send) => send.token === token)
        assert.deepStrictEqual(
          sent.map((send) => send.notification.collapseKey),
          [row!.id, row!.id]
        )
        assert.strictEqual((yield* Metric.value(notificationResends)).count, resends.count + 1)
      })
    )

    it.effect(
      "a push whose outcome cannot be recorded is not released: after its lease it is sent again as a resend",
      () =>
        Effect.gen(function* () {
          const fake = yield* PushGatewaysFake
          const token = fcmToken("unrecorded")
          const user = yield* userWithDevices([{ tokenType: "FCM", token }])
          yield* receive(credit({ reference: unique("VA-REF"), accountNumber: user.accountNumber }))
          const resends = yield* Metric.value(notificationResends)
          recordsLost = true
          yield* deliver.pipe(Effect.ensuring(Effect.sync(() => (recordsLost = false))))
          // Sent, not recorded, and not given back as if it had not been: claimed, sent-unconfirmed.
          let [row] = yield* rowsOf(user.userId)
          assert.strictEqual(row!.status, "pending")
          assert.isNotNull(row!.claimId)
          assert.isNotNull(row!.sendStartedAt)
          yield* deliver
          assert.strictEqual((yield* fake.sent).filter((send) => send.token === token).length, 1)
          // Its lease runs out: the next claim sends it again, in doubt, with the same collapse key.
          yield* TestClock.adjust(DEFAULT_NOTIFICATION_SETTINGS.lease)
          yield* TestClock.adjust(Duration.seconds(1))
          yield* deliver
          ;[row] = yield* rowsOf(user.userId)
          assert.deepStrictEqual([row!.status, row!.attempts, row!.resends, row!.inDoubt], ["sent", 2, 1, true])
          assert.deepStrictEqual(
            (yield* fake.sent).filter((send) => send.token === token).map((send) => send.notification.collapseKey),
            [row!.id, row!.id]
          )
          assert.strictEqual((yield* Metric.value(notificationResends)).count, resends.count + 1)
        })
    )

    it.effect("a retryable failure is tried again after its backoff, then parked after the last attempt", () =>
      Effect.gen(function* () {
        const fake = yield* PushGatewaysFake
        const user = yield* userWithDevices([{ tokenType: "FCM", token: fcmToken("retry") }])
        yield* receive(credit({ reference: unique("VA-REF"), accountNumber: user.accountNumber }))
        const unavailable = { result: failure("UNAVAILABLE", "503 Service Unavailable") }
        yield* fake.answerNext("FCM", unavailable)
        yield* deliver
        let [row] = yield* rowsOf(user.userId)
        assert.strictEqual(row!.status, "pending")
        assert.strictEqual(row!.attempts, 1)
        assert.strictEqual(row!.lastError, "UNAVAILABLE: 503 Service Unavailable")
        // Not due before its backoff (at least half the 2 s base)…
        yield* deliver
        assert.strictEqual((yield* rowsOf(user.userId))[0]!.attempts, 1)
        // …due after it.
        yield* TestClock.adjust(Duration.seconds(2))
        yield* deliver
        ;[row] = yield* rowsOf(user.userId)
        assert.strictEqual(row!.status, "sent")
        assert.strictEqual(row!.attempts, 2)

        const parked = yield* userWithDevices([{ tokenType: "FCM", token: fcmToken("parked") }])
        yield* receive(credit({ reference: unique("VA-REF"), accountNumber: parked.accountNumber }))
        for (let attempt = 1; attempt <= 3; attempt++) {
          yield* fake.answerNext("FCM", unavailable)
          yield* deliver
          yield* TestClock.adjust(Duration.minutes(1))
        }
        ;[row] = yield* rowsOf(parked.userId)
        assert.strictEqual(row!.status, "failed")
        assert.strictEqual(row!.attempts, 3)

        const service = yield* NotificationsService
        assert.deepStrictEqual(
          (yield* service.list({ status: "failed", limit: 50, offset: 0 })).map((view) => view.id),
          [row!.id]
        )
        assert.deepStrictEqual(yield* service.retry(row!.id), { id: row!.id, retried: true, status: "pending" })
        yield* deliver
        assert.strictEqual((yield* rowsOf(parked.userId))[0]!.status, "sent")
        assert.deepStrictEqual(yield* service.retry(row!.id), { id: row!.id, retried: false, status: "sent" })
      })
    )

    it.effect("an unregistered token deactivates its device and stops the device's other rows", () =>
      Effect.gen(function* () {
        const fake = yield* PushGatewaysFake
        const devices = yield* Devices
        const user = yield* userWithDevices([
          { tokenType: "APNS", token: apnsToken("c") },
          { tokenType: "FCM", token: fcmToken("alive") }
        ])
        yield* receive(credit({ reference: unique("VA-REF"), accountNumber: user.accountNumber }))
        yield* fake.answerNext("APNS", { result: failure("UNREGISTERED", "BadDeviceToken") })
        yield* deliver
        const rows = yield* rowsOf(user.userId)
        assert.deepStrictEqual(
          rows.map((row) => [row.deviceId, row.status]),
          [
            [user.deviceIds[0], "cancelled"],
            [user.deviceIds[1], "sent"]
          ]
        )
        assert.deepStrictEqual(
          (yield* devices.list(user.userId)).map((device) => device.deviceId),
          [user.deviceIds[1]]
        )
        // The next deposit reaches only the live device.
        yield* receive(credit({ reference: unique("VA-REF"), accountNumber: user.accountNumber }))
        assert.strictEqual((yield* rowsOf(user.userId)).length, 3)
      })
    )

    it.effect("closing the worker's scope waits for the send in hand and records it", () =>
      Effect.gen(function* () {
        const fake = yield* PushGatewaysFake
        const user = yield* userWithDevices([{ tokenType: "FCM", token: fcmToken("shutdown") }])
        yield* receive(credit({ reference: unique("VA-REF"), accountNumber: user.accountNumber }))
        // Earlier tests' rows go first, so the slow answer is this row's.
        yield* TestClock.adjust(Duration.hours(1))
        while ((yield* deliver) > 0) yield* TestClock.adjust(Duration.hours(1))
        yield* receive(credit({ reference: unique("VA-REF"), accountNumber: user.accountNumber }))
        yield* fake.answerNext("FCM", { result: success("slow-1"), delay: Duration.seconds(5) })
        const scope = yield* Scope.make()
        yield* Layer.buildWithScope(NotificationWorker.layer, scope)
        // The worker has claimed the row and its push is on its way (the provider answers in 5 s).
        while ((yield* fake.sent).filter((send) => send.token === fcmToken("shutdown")).length < 2) {
          yield* Effect.yieldNow
        }
        const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
        yield* TestClock.adjust(Duration.seconds(5))
        yield* Fiber.join(closing)
        const row = (yield* rowsOf(user.userId)).at(-1)
        assert.strictEqual(row!.status, "sent")
        assert.strictEqual(row!.providerMessageId, "slow-1")
        assert.isNull(row!.claimId)
      })
    )

    it.effect("a row whose device moved to another user is cancelled, never sent to the new owner", () =>
      Effect.gen(function* () {
        const fake = yield* PushGatewaysFake
        const devices = yield* Devices
        const token = fcmToken("moved")
        const user = yield* userWithDevices([{ tokenType: "FCM", token }])
        yield* receive(credit({ reference: unique("VA-REF"), accountNumber: user.accountNumber }))
        const other = unique("user") as UserId
        yield* devices.register(other, { tokenType: "FCM", token: Redacted.make(token), platform: null })
        yield* TestClock.adjust(Duration.hours(1))
        while ((yield* deliver) > 0) yield* TestClock.adjust(Duration.hours(1))
        const [row] = yield* rowsOf(user.userId)
        assert.strictEqual(row!.status, "cancelled")
        assert.strictEqual(row!.lastError, "device moved to another user")
        assert.deepStrictEqual(
          (yield* fake.sent).filter((send) => send.token === token),
          []
        )
      })
    )
  })
})
