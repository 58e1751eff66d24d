import { assert, describe, layer } from "@effect/vitest"
import { statementsOf } from "@payments-gaming/adapters/test/support/StatementsOf"
import type { UserId } from "@payments-gaming/domain/auth"
import { LedgerRecorder } from "@payments-gaming/domain/ledger"
import { WheelTesting } from "@payments-gaming/domain/testing"
import {
  type ClientSeed,
  ClientSeeds,
  defaultWheel,
  type IdempotencyKey,
  type RoundId,
  Spin,
  SpinAndWinService,
  type SpinId,
  SpinRepository
} from "@payments-gaming/domain/wheel"
import { DateTime, Effect, Exit, Option } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { wheelOnPostgres } from "../support/WheelDatabase.ts"

const user = (id: string) => id as UserId
const FIRST_SEGMENT = defaultWheel("NGN").segments[0]!

/** A fresh TestClock per test: the database layer's pool timers stay on the live clock. */
const withTestClock = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, TestClock.layer())

const spinOf = (userId: string, round: string, idempotencyKey: string | null, nonce: number) =>
  new Spin({
    spinId: crypto.randomUUID() as SpinId,
    userId: user(userId),
    round: round as RoundId,
    wheelVersion: 1,
    clientSeed: "a seed" as ClientSeed,
    nonce,
    drawValue: 0,
    segmentId: FIRST_SEGMENT.id,
    prize: { type: FIRST_SEGMENT.type, value: FIRST_SEGMENT.value },
    createdAt: DateTime.makeUnsafe("2026-05-01T11:00:00Z"),
    idempotencyKey: idempotencyKey as IdempotencyKey | null
  })

describe("spin-and-win SQL per request", () => {
  layer(wheelOnPostgres(WheelTesting.layerDeterministicRandom()), {
    timeout: "60 seconds",
    excludeTestServices: true
  })("on PostgreSQL", (it) => {
    it.effect("GET /v1/spin-and-win is one query once the wheel and the round's seed are known", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-05-01T11:00:00Z"))
        const service = yield* SpinAndWinService
        const first = yield* statementsOf(service.view(user("viewer")))
        assert.isTrue(first.statements.some((text) => text.includes("FROM wheels")))
        assert.isTrue(first.statements.some((text) => text.includes("round_seeds")))

        for (let index = 0; index < 5; index++) {
          yield* TestClock.adjust("1 second")
          const { result, statements } = yield* statementsOf(service.view(user(`viewer-${index}`)))
          assert.strictEqual(statements.length, 1, statements.join("\n"))
          assert.notInclude(statements[0], "wheels")
          assert.notInclude(statements[0], "round_seeds")
          assert.strictEqual(result.commitment, first.result.commitment)
        }

        // Past the TTL the wheel is read again; the round's seed is not.
        yield* TestClock.adjust("10 seconds")
        const later = yield* statementsOf(service.view(user("viewer")))
        assert.strictEqual(later.statements.length, 2, later.statements.join("\n"))
        assert.isTrue(later.statements.some((text) => text.includes("FROM wheels")))
        assert.isFalse(later.statements.some((text) => text.includes("round_seeds")))
      }).pipe(withTestClock)
    )

    it.effect("a spin reads neither the wheel nor the seed again, and inserts its row in one statement", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-05-01T12:00:00Z"))
        const service = yield* SpinAndWinService
        yield* service.view(user("spinner"))
        const { statements } = yield* statementsOf(service.spin(user("spinner")))
        assert.isFalse(statements.some((text) => text.includes("FROM wheels") || text.includes("round_seeds")))
        // The spin's INSERT, in the statement that takes its nonce and posts its prize.
        const inserts = statements.filter((text) => text.includes("INSERT INTO spins"))
        assert.strictEqual(inserts.length, 1)
        const again = yield* Effect.exit(service.spin(user("spinner")))
        assert.isTrue(Exit.isFailure(again))
        assert.strictEqual(Option.getOrThrow(Exit.findErrorOption(again))._tag, "AlreadySpun")
      }).pipe(withTestClock)
    )

    it.effect("a spin is two statements and no transaction: its player's seed, then one write", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-05-01T12:00:00Z"))
        const service = yield* SpinAndWinService
        yield* service.view(user("counted"))
        // Before issue 16 a spin was BEGIN, the claim of the client seed, the spin, the prize's
        // posting and its outbox row, COMMIT, and the balance read. Now the seed and nonce are read,
        // and one statement takes the nonce, records the spin, posts and announces its prize and
        // reads the coin balance: atomic on its own, so no BEGIN and no COMMIT.
        const { result, statements, transactions } = yield* statementsOf(service.spin(user("counted")))
        assert.strictEqual(transactions, 0)
        assert.strictEqual(statements.length, 2, statements.join("\n"))
        assert.match(statements[0]!, /^SELECT client_seed .* FROM wheel_client_seeds WHERE user_id = \$1$/)
        // The round's check on the database's clock comes first: nothing is taken once the round ended.
        assert.match(statements[1]!, /^WITH open AS \(\s*SELECT 1 WHERE now\(\) >= /)
        assert.match(statements[1]!, /claimed AS \(\s*UPDATE wheel_client_seeds .* AND EXISTS \(SELECT 1 FROM open\)/)
        assert.include(statements[1], "INSERT INTO spins")
        const prize = ["INSERT INTO ledger_transactions", "INSERT INTO notification_outbox"]
        for (const part of prize) {
          assert.strictEqual(statements[1]!.includes(part), result.segment.value !== 0, part)
        }
        // A second spin in the round: the same two, the write refused by the spins' unique key, then
        // the player's spin in the round, to tell a refusal from this spin's own lost-reply retry.
        const refused = yield* statementsOf(Effect.exit(service.spin(user("counted"))))
        assert.strictEqual(refused.statements.length, 3, refused.statements.join("\n"))
        assert.match(refused.statements[2]!, /FROM spins WHERE round = \$1 AND user_id = \$2/)
        assert.isTrue(Exit.isFailure(refused.result))
        // ...which aborted the whole statement, so the nonce was not taken.
        assert.strictEqual((yield* service.clientSeed(user("counted"))).nonce, 1)
      }).pipe(withTestClock)
    )

    it.effect("record: either unique key refuses with AlreadySpun, and writes nothing, the nonce neither", () =>
      Effect.gen(function* () {
        const spins = yield* SpinRepository
        const recorder = yield* LedgerRecorder
        const seeds = yield* ClientSeeds
        const sql = yield* SqlClient.SqlClient
        const count = (userId: string) =>
          Effect.map(
            sql<{ n: number }>`SELECT count(*)::int AS n FROM spins WHERE user_id = ${userId}`,
            (rows) => rows[0]?.n ?? -1
          )
        const nextNonce = (userId: string) =>
          Effect.map(seeds.current(user(userId)), Option.match({ onNone: () => -1, onSome: (state) => state.nonce }))
        const recorded = (spin: Spin) =>
          Effect.map(recorder.record(spins.spun(spin, WheelTesting.alwaysOpen)), (result) => result._tag)
        assert.strictEqual(yield* recorded(spinOf("recorder", "2026-05-01", "key-1", 0)), "Recorded")
        // Same user and round, another key: a second spin in the round.
        const sameRound = yield* Effect.flip(
          recorder.record(spins.spun(spinOf("recorder", "2026-05-01", "key-2", 1), WheelTesting.alwaysOpen))
        )
        // Same user and key, another round: the key's first request already spun.
        const sameKey = yield* Effect.flip(
          recorder.record(spins.spun(spinOf("recorder", "2026-05-02", "key-1", 1), WheelTesting.alwaysOpen))
        )
        assert.deepStrictEqual(
          [sameRound._tag, sameKey._tag, sameRound.round, sameKey.round],
          ["AlreadySpun", "AlreadySpun", "2026-05-01", "2026-05-02"]
        )
        // Neither took the nonce: the next spin is still drawn with nonce 1.
        assert.strictEqual(yield* nextNonce("recorder"), 1)
        assert.strictEqual(yield* recorded(spinOf("recorder", "2026-05-03", "key-3", 1)), "Recorded")
        assert.strictEqual(yield* count("recorder"), 2)
        assert.strictEqual(yield* nextNonce("recorder"), 2)
        // Another user with the same key and round is a spin of its own.
        assert.strictEqual(yield* recorded(spinOf("someone-else", "2026-05-01", "key-1", 0)), "Recorded")
        assert.strictEqual(yield* count("someone-else"), 1)
        // Without a key, only the round counts.
        yield* recorder.record(spins.spun(spinOf("keyless", "2026-05-01", null, 0), WheelTesting.alwaysOpen))
        yield* recorder.record(spins.spun(spinOf("keyless", "2026-05-02", null, 1), WheelTesting.alwaysOpen))
        const refused = yield* Effect.flip(
          recorder.record(spins.spun(spinOf("keyless", "2026-05-02", null, 2), WheelTesting.alwaysOpen))
        )
        assert.strictEqual(refused._tag, "AlreadySpun")
        assert.strictEqual(yield* count("keyless"), 2)
      })
    )
  })
})
