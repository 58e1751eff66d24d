import { assert, describe, layer } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import { Devices, MAX_ACTIVE_DEVICES, MAX_INACTIVE_DEVICES, REMOVED_BY_USER } from "@payments-gaming/domain/devices"
import {
  devicesContract,
  fill,
  freshToken,
  registration,
  user
} from "@payments-gaming/domain/test/support/devicesContract"
import { Effect, Exit, Layer, Logger, Result } from "effect"
import { SqlClient } from "effect/sql"
import * as DevicesPostgres from "../../src/postgres/DevicesPostgres.ts"
import { TestDatabase } from "../support/TestDatabase.ts"

const lines: Array<string> = []
const capture = Logger.map(Logger.formatJson, (line) => {
  lines.push(line)
})

const DevicesOnPostgres = DevicesPostgres.layer.pipe(
  Layer.provideMerge(TestDatabase),
  // Merged, not only provided: the adapter logs on the test's own fiber.
  Layer.provideMerge(Logger.layer([capture]))
)

const rowOf = (token: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{
      userId: string
      token: string
      active: boolean
      deactivatedAt: Date | null
      reason: string | null
    }>`SELECT user_id AS "userId", token, active, deactivated_at AS "deactivatedAt", deactivation_reason AS reason
      FROM user_devices WHERE token = ${token}`
    return row
  })

const rowById = (deviceId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{
      userId: string
      token: string | null
      active: boolean
      deactivatedAt: Date | null
      reason: string | null
    }>`SELECT user_id AS "userId", token, active, deactivated_at AS "deactivatedAt", deactivation_reason AS reason
      FROM user_devices WHERE id = ${deviceId}::uuid`
    return row
  })

describe("Devices on PostgreSQL", () => {
  layer(DevicesOnPostgres, { timeout: "60 seconds" })((it) => {
    devicesContract(it)

    it.effect("removal and deactivation keep when and why but erase the token; registering again is a new row", () =>
      Effect.gen(function* () {
        const devices = yield* Devices
        const ada = user("ada")
        const removedToken = freshToken("FCM")
        const removed = yield* devices.register(ada, registration("FCM", removedToken))
        yield* devices.remove(ada, removed.device.deviceId)
        const afterRemove = yield* rowById(removed.device.deviceId)
        assert.strictEqual(afterRemove?.active, false)
        assert.strictEqual(afterRemove?.reason, REMOVED_BY_USER)
        assert.instanceOf(afterRemove?.deactivatedAt, Date)
        assert.isNull(afterRemove?.token)
        assert.isUndefined(yield* rowOf(removedToken))

        const deadToken = freshToken("APNS")
        const dead = yield* devices.register(ada, registration("APNS", deadToken))
        yield* devices.deactivate(dead.device.deviceId, "UNREGISTERED")
        const first = yield* rowById(dead.device.deviceId)
        yield* devices.deactivate(dead.device.deviceId, "INVALID_TOKEN")
        // Idempotent: the first deactivation's reason and time stay.
        assert.deepStrictEqual(yield* rowById(dead.device.deviceId), first)
        assert.strictEqual(first?.reason, "UNREGISTERED")
        assert.isNull(first?.token)

        const again = yield* devices.register(ada, registration("APNS", deadToken))
        assert.isTrue(again.created)
        assert.notStrictEqual(again.device.deviceId, dead.device.deviceId)
        const back = yield* rowOf(deadToken)
        assert.deepStrictEqual(
          { active: back?.active, reason: back?.reason, at: back?.deactivatedAt },
          { active: true, reason: null, at: null }
        )
        // An active row without its token is refused by the table itself.
        const sql = yield* SqlClient.SqlClient
        const refused = yield* Effect.exit(
          sql`UPDATE user_devices SET token = NULL WHERE id = ${again.device.deviceId}::uuid`
        )
        assert.isTrue(Exit.isFailure(refused))
        assert.strictEqual((yield* rowOf(deadToken))?.active, true)
      })
    )

    it.effect("40 register and remove cycles keep at most MAX_INACTIVE_DEVICES rows, and none of their tokens", () =>
      Effect.gen(function* () {
        const devices = yield* Devices
        const sql = yield* SqlClient.SqlClient
        const cycler = user("cycler")
        const tokens: Array<string> = []
        for (let cycle = 0; cycle < 40; cycle++) {
          const token = freshToken(cycle % 2 === 0 ? "FCM" : "APNS")
          tokens.push(token)
          const added = yield* devices.register(cycler, registration(cycle % 2 === 0 ? "FCM" : "APNS", token))
          if (cycle % 3 === 0) yield* devices.deactivate(added.device.deviceId, "UNREGISTERED")
          else yield* devices.remove(cycler, added.device.deviceId)
        }
        const rows = yield* sql<{ token: string | null; active: boolean }>`SELECT token, active FROM user_devices
          WHERE user_id = ${cycler}`
        assert.strictEqual(rows.length, MAX_INACTIVE_DEVICES)
        assert.isTrue(rows.every((row) => !row.active && row.token === null))
        // The newest are the ones kept: the last 20 cycles' reasons, in order.
        const kept = yield* sql<{ reason: string }>`SELECT deactivation_reason AS reason FROM user_devices
          WHERE user_id = ${cycler} ORDER BY deactivated_at, id`
        assert.deepStrictEqual(
          kept.map((row) => row.reason),
          Array.from({ length: MAX_INACTIVE_DEVICES }, (_, index) =>
            (40 - MAX_INACTIVE_DEVICES + index) % 3 === 0 ? "UNREGISTERED" : REMOVED_BY_USER
          )
        )
        // No token of theirs anywhere in the table, whole or in part.
        const [found] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM user_devices
          WHERE token = ANY(${tokens})`
        assert.strictEqual(found?.n, 0)
        // Another user's devices are untouched by the pruning.
        const other = user("cycler-neighbour")
        const neighbours = yield* devices.register(other, registration("FCM", freshToken("FCM")))
        yield* devices.remove(other, neighbours.device.deviceId)
        const [theirs] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM user_devices WHERE user_id = ${other}`
        assert.strictEqual(theirs?.n, 1)
      })
    )

    it.effect("concurrent registrations of one new token by two users: one row, one created, one moved", () =>
      Effect.gen(function* () {
        const devices = yield* Devices
        for (let round = 0; round < 10; round++) {
          const token = freshToken("FCM")
          const [ada, bola] = [user("race-ada"), user("race-bola")]
          const results = yield* Effect.all(
            [devices.register(ada, registration("FCM", token)), devices.register(bola, registration("FCM", token))],
            { concurrency: "unbounded" }
          )
          const sql = yield* SqlClient.SqlClient
          const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM user_devices WHERE token = ${token}`
          assert.strictEqual(count?.n, 1)
          // Both are new to their caller; exactly one saw the other's row and reports the move.
          assert.deepStrictEqual(
            results.map((result) => result.created),
            [true, true]
          )
          const moves = results.filter((result) => result.movedFrom !== null)
          assert.strictEqual(moves.length, 1)
          const owner = (yield* rowOf(token))?.userId
          const mover = moves[0]!
          assert.strictEqual(owner, mover === results[0] ? ada : bola)
          assert.strictEqual(mover.movedFrom, mover === results[0] ? bola : ada)
          assert.strictEqual(results[0].device.deviceId, results[1].device.deviceId)
        }
      })
    )

    it.effect("30 concurrent registrations of new tokens by one user leave exactly the limit active", () =>
      Effect.gen(function* () {
        const devices = yield* Devices
        const sql = yield* SqlClient.SqlClient
        // From none, then from one below the limit, where all 30 race for the last slot. The first
        // round also opens the pool's connections (earlier tests used one), so the second races on
        // all of them: without the user's lock, up to one per connection gets through.
        for (const already of [0, MAX_ACTIVE_DEVICES - 1]) {
          const ada = user("race-full")
          yield* fill(ada, already)
          const results = yield* Effect.all(
            Array.from({ length: 30 }, (_, index) => {
              const tokenType = index % 2 === 0 ? "FCM" : "APNS"
              return Effect.result(devices.register(ada, registration(tokenType, freshToken(tokenType))))
            }),
            { concurrency: "unbounded" }
          )
          const created = results.filter(Result.isSuccess)
          const refused = results.filter(Result.isFailure)
          assert.strictEqual(created.length, MAX_ACTIVE_DEVICES - already, `from ${already}`)
          assert.isTrue(created.every((result) => result.success.created))
          assert.strictEqual(refused.length, 30 - (MAX_ACTIVE_DEVICES - already))
          assert.isTrue(refused.every((result) => result.failure._tag === "DeviceLimitReached"))
          const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM user_devices
            WHERE user_id = ${ada} AND active`
          assert.strictEqual(row?.n, MAX_ACTIVE_DEVICES, `from ${already}`)
        }
      })
    )

    it.effect("a move logs one warning naming both users and the device; no line holds a token", () =>
      Effect.gen(function* () {
        const devices = yield* Devices
        const token = freshToken("APNS")
        const ada = "log-ada-pg" as UserId
        const bola = "log-bola-pg" as UserId
        yield* devices.register(ada, registration("APNS", token))
        const moved = yield* devices.register(bola, registration("APNS", token))
        const moveLines = lines.filter((line) => line.includes(moved.device.deviceId) && line.includes("moved"))
        assert.strictEqual(moveLines.length, 1)
        const line = JSON.parse(moveLines[0]!)
        assert.strictEqual(line.level, "WARN")
        assert.deepStrictEqual(line.annotations, { deviceId: moved.device.deviceId, fromUserId: ada, toUserId: bola })
        for (const text of lines) assert.notInclude(text, token.slice(-8))
      })
    )
  })
})
