import { assert, describe, layer } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import { type ClaimedNotification, NotificationOutbox } from "@payments-gaming/domain/notifications"
import { Duration, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import * as NotificationOutboxPostgres from "../../src/postgres/NotificationOutboxPostgres.ts"
import { TestDatabase } from "../support/TestDatabase.ts"

const Live = NotificationOutboxPostgres.layer.pipe(Layer.provideMerge(TestDatabase))

let counter = 0
const fresh = (label: string) => `${label}-${process.pid}-${++counter}`

/** A user with one active and one inactive device; returns the user and the active device's id. */
const userWithDevices = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const userId = fresh("user") as UserId
  const [active] = yield* sql<{ id: string }>`INSERT INTO user_devices (id, user_id, token_type, token)
    VALUES (gen_random_uuid(), ${userId}, 'FCM', ${fresh("token-active")}) RETURNING id`
  yield* sql`INSERT INTO user_devices (id, user_id, token_type, token, active)
    VALUES (gen_random_uuid(), ${userId}, 'APNS', ${fresh("token-inactive")}, false)`
  return { userId, deviceId: active!.id }
})

const event = (userId: UserId, eventKey = fresh("event")) => ({
  eventKey,
  userId,
  content: { templateCode: "DEPOSIT_RECEIVED" as const, title: "Money received", body: "You received ₦1.00" }
})

const lease = Duration.minutes(5)

/** A push left and its answer is known. */
const PUSHED = { pushed: true, inDoubt: false }

/** Claims until the user's rows come up (other tests' rows may be due in the same database). */
const claimFor = (outbox: NotificationOutbox["Service"], userId: string, limit = 50) =>
  Effect.map(outbox.claimDue({ limit, lease }), (rows) => rows.filter((row) => row.userId === userId))

describe("NotificationOutboxPostgres", () => {
  layer(Live, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("enqueue writes one row per active device, once per event, and only if its transaction commits", () =>
      Effect.gen(function* () {
        const outbox = yield* NotificationOutbox
        const sql = yield* SqlClient.SqlClient
        const { userId, deviceId } = yield* userWithDevices
        const first = event(userId)
        assert.strictEqual(yield* outbox.enqueue(first), 1)
        assert.strictEqual(yield* outbox.enqueue(first), 0)
        const rolledBack = event(userId)
        yield* sql
          .withTransaction(Effect.andThen(outbox.enqueue(rolledBack), Effect.fail("rolled back")))
          .pipe(Effect.ignore)
        const rows = yield* sql<{ event_key: string; device_id: string; status: string }>`
          SELECT event_key, device_id, status FROM notification_outbox WHERE user_id = ${userId}`
        assert.deepStrictEqual(rows, [{ event_key: first.eventKey, device_id: deviceId, status: "pending" }])
      })
    )

    it.effect("two concurrent claims never take the same row, and a held row is not due", () =>
      Effect.gen(function* () {
        const outbox = yield* NotificationOutbox
        const { userId } = yield* userWithDevices
        for (let i = 0; i < 10; i++) yield* outbox.enqueue(event(userId))
        const [a, b] = yield* Effect.all([claimFor(outbox, userId, 5), claimFor(outbox, userId, 5)], {
          concurrency: 2
        })
        const ids = [...a!, ...b!].map((row) => row.id)
        assert.strictEqual(new Set(ids).size, ids.length)
        const rest = yield* claimFor(outbox, userId)
        assert.strictEqual(ids.length + rest.length, 10)
        assert.deepStrictEqual(yield* claimFor(outbox, userId), [])
        assert.isNotNull(a![0]?.device)
        assert.strictEqual(a![0]?.device?.tokenType, "FCM")
        assert.strictEqual(a![0]?.device?.userId, userId)
      })
    )

    it.effect("a row whose lease ran out is due again; the late worker's record then changes nothing", () =>
      Effect.gen(function* () {
        const outbox = yield* NotificationOutbox
        const sql = yield* SqlClient.SqlClient
        const { userId } = yield* userWithDevices
        yield* outbox.enqueue(event(userId))
        const [dead] = yield* claimFor(outbox, userId)
        // The worker holding it died: its lease runs out (moved into the past rather than waited for).
        yield* sql`UPDATE notification_outbox SET claimed_until = now() - interval '1 second' WHERE id = ${dead!.id}::uuid`
        // Meanwhile its token was registered by another user: the claim reports the new owner.
        yield* sql`UPDATE user_devices SET user_id = 'someone-else' WHERE id = ${dead!.deviceId}::uuid`
        const [again] = yield* claimFor(outbox, userId)
        assert.strictEqual(again?.id, dead!.id)
        assert.strictEqual(again?.device?.userId, "someone-else")
        assert.notStrictEqual(again?.claimId, dead!.claimId)
        yield* outbox.record(dead as ClaimedNotification, { _tag: "Failed", error: "late" }, PUSHED)
        yield* outbox.record(again!, { _tag: "Sent", providerMessageId: "m-1" }, PUSHED)
        const view = yield* outbox.find(dead!.id)
        assert.strictEqual(Option.getOrThrow(view).status, "sent")
        assert.strictEqual(Option.getOrThrow(view).providerMessageId, "m-1")
        assert.strictEqual(Option.getOrThrow(view).attempts, 1)
      })
    )

    it.effect("release gives unrecorded rows back at once; retry re-queues a failed row", () =>
      Effect.gen(function* () {
        const outbox = yield* NotificationOutbox
        const { userId } = yield* userWithDevices
        yield* outbox.enqueue(event(userId))
        yield* outbox.enqueue(event(userId))
        const claimed = yield* claimFor(outbox, userId)
        assert.strictEqual(claimed.length, 2)
        yield* outbox.record(claimed[0]!, { _tag: "Failed", error: "AUTH_ERROR: bad key" }, PUSHED)
        yield* outbox.release(claimed[1]!.claimId)
        const again = yield* claimFor(outbox, userId)
        assert.deepStrictEqual(
          again.map((row) => row.id),
          [claimed[1]!.id]
        )
        assert.strictEqual(again[0]!.attempts, 0)
        const failed = yield* outbox.list({ status: "failed", limit: 200, offset: 0 })
        assert.include(
          failed.map((row) => row.id),
          claimed[0]!.id
        )
        const requeued = yield* outbox.requeue(claimed[0]!.id, "failed")
        assert.strictEqual(Option.getOrThrow(requeued).status, "pending")
        assert.strictEqual(Option.getOrThrow(requeued).attempts, 0)
        assert.isTrue(Option.isNone(yield* outbox.requeue(claimed[0]!.id, "failed")))
        assert.isTrue(Option.isNone(yield* outbox.find("not-a-uuid")))
      })
    )

    it.effect(
      "a row marked as being sent is never released; after its lease it is claimed in doubt, and its send counted as a resend",
      () =>
        Effect.gen(function* () {
          const outbox = yield* NotificationOutbox
          const sql = yield* SqlClient.SqlClient
          const { userId } = yield* userWithDevices
          yield* outbox.enqueue(event(userId))
          yield* outbox.enqueue(event(userId))
          const [sending, idle] = yield* claimFor(outbox, userId)
          // One claim, one id for all its rows: `release` gives back the whole batch.
          assert.strictEqual(idle!.claimId, sending!.claimId)
          assert.isFalse(sending!.inDoubt)
          yield* outbox.markSending(sending!.claimId, [sending!.id])
          yield* outbox.markSending(sending!.claimId, [sending!.id])
          // The outcome is lost: the claim is released, and only the row whose push never left is due.
          yield* outbox.release(sending!.claimId)
          assert.deepStrictEqual(
            (yield* claimFor(outbox, userId)).map((row) => row.id),
            [idle!.id]
          )
          assert.isTrue(Option.getOrThrow(yield* outbox.find(sending!.id)).unconfirmed)
          // Its lease runs out: the next claim takes it as an attempt that may have reached the provider.
          yield* sql`UPDATE notification_outbox SET claimed_until = now() - interval '1 second' WHERE id = ${sending!.id}::uuid`
          const [again] = yield* claimFor(outbox, userId)
          assert.strictEqual(again?.id, sending!.id)
          assert.isTrue(again!.inDoubt)
          assert.strictEqual(again!.attempts, 1)
          yield* outbox.markSending(again!.claimId, [again!.id])
          yield* outbox.record(again!, { _tag: "Sent", providerMessageId: "m-2" }, PUSHED)
          // Recorded twice (a retry after a lost answer): nothing changes.
          yield* outbox.record(again!, { _tag: "Sent", providerMessageId: "m-3" }, PUSHED)
          const view = Option.getOrThrow(yield* outbox.find(sending!.id))
          assert.deepStrictEqual(
            {
              status: view.status,
              attempts: view.attempts,
              resends: view.resends,
              inDoubt: view.inDoubt,
              unconfirmed: view.unconfirmed,
              providerMessageId: view.providerMessageId
            },
            { status: "sent", attempts: 2, resends: 1, inDoubt: true, unconfirmed: false, providerMessageId: "m-2" }
          )
        })
    )

    it.effect("a timed-out send leaves its row in doubt: the next send is a resend", () =>
      Effect.gen(function* () {
        const outbox = yield* NotificationOutbox
        const sql = yield* SqlClient.SqlClient
        const { userId } = yield* userWithDevices
        yield* outbox.enqueue(event(userId))
        const [row] = yield* claimFor(outbox, userId)
        yield* outbox.record(row!, { _tag: "Retry", delayMillis: 0, error: "TIMEOUT" }, { pushed: true, inDoubt: true })
        yield* sql`UPDATE notification_outbox SET next_attempt_at = now() WHERE id = ${row!.id}::uuid`
        const [again] = yield* claimFor(outbox, userId)
        assert.isTrue(again!.inDoubt)
        yield* outbox.record(again!, { _tag: "Sent", providerMessageId: "m" }, PUSHED)
        assert.strictEqual(Option.getOrThrow(yield* outbox.find(row!.id)).resends, 1)
      })
    )

    it.effect("a retry is due only after its backoff; stats count waiting rows", () =>
      Effect.gen(function* () {
        const outbox = yield* NotificationOutbox
        const { userId } = yield* userWithDevices
        yield* outbox.enqueue(event(userId))
        const [row] = yield* claimFor(outbox, userId)
        yield* outbox.record(row!, { _tag: "Retry", delayMillis: 3_600_000, error: "UNAVAILABLE: 503" }, PUSHED)
        assert.deepStrictEqual(yield* claimFor(outbox, userId), [])
        const stats = yield* outbox.stats
        assert.isAtLeast(stats.depth, 1)
        assert.isAtLeast(stats.oldestDueSeconds, 0)
      })
    )
  })
})
