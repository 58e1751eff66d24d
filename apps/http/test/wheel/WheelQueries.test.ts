import { assert, describe, layer } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import { WheelTesting } from "@payments-gaming/domain/testing"
import {
  defaultWheel,
  type IdempotencyKey,
  type RoundId,
  Spin,
  SpinAndWinService,
  type SpinId,
  SpinRepository
} from "@payments-gaming/domain/wheel"
import { DateTime, Effect, Exit, Option, Tracer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { wheelOnPostgres } from "../support/WheelDatabase.ts"

const user = (id: string) => id as UserId
const FIRST_SEGMENT = defaultWheel("NGN").segments[0]!

/** Runs `effect` and returns the SQL text of every statement it sent, in order. */
const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const spans: Array<Tracer.NativeSpan> = []
    const tracer = Tracer.make({
      span(options) {
        const span = new Tracer.NativeSpan(options)
        spans.push(span)
        return span
      }
    })
    const result = yield* Effect.withTracer(effect, tracer)
    const statements = spans.flatMap((span) => {
      const text = span.attributes.get("db.query.text")
      return span.kind === "client" && typeof text === "string" ? [text.replace(/\s+/g, " ").trim()] : []
    })
    return { result, statements }
  })

/** A fresh TestClock per test: the database layer's pool timers stay on the live clock. */
const withTestClock = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, TestClock.layer())

const spinOf = (userId: string, round: string, idempotencyKey: string | null) =>
  new Spin({
    spinId: crypto.randomUUID() as SpinId,
    userId: user(userId),
    round: round as RoundId,
    wheelVersion: 1,
    clientSeed: null,
    nonce: 0,
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

    it.effect("a spin reads neither the wheel nor the seed again, and inserts its row without a savepoint", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-05-01T12:00:00Z"))
        const service = yield* SpinAndWinService
        yield* service.view(user("spinner"))
        const { statements } = yield* statementsOf(service.spin(user("spinner")))
        assert.isFalse(statements.some((text) => text.includes("FROM wheels") || text.includes("round_seeds")))
        const inserts = statements.filter((text) => text.startsWith("INSERT INTO spins"))
        assert.strictEqual(inserts.length, 1)
        assert.include(inserts[0], "ON CONFLICT DO NOTHING")
        const again = yield* Effect.exit(service.spin(user("spinner")))
        assert.isTrue(Exit.isFailure(again))
        assert.strictEqual(Option.getOrThrow(Exit.findErrorOption(again))._tag, "AlreadySpun")
      }).pipe(withTestClock)
    )

    it.effect("a spin sends one statement more than before client seeds (the claim), a refused spin none", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-05-01T12:00:00Z"))
        const service = yield* SpinAndWinService
        yield* service.view(user("counted"))
        // The prize's notification (issue 18's outbox write, in the same transaction) is counted by
        // that feature's tests; this one counts the wheel's own statements.
        const shape = (statements: ReadonlyArray<string>) =>
          statements
            .filter((text) => !text.includes("notification_outbox"))
            .map((text) => text.split(" (")[0]!.split(" WHERE")[0]!.slice(0, 40))
        // Before issue 17 a spin sent INSERT INTO spins, the ledger posting (a prize) and the balance
        // read, between BEGIN and COMMIT: three statements. Now the claim of the client seed comes first.
        const { result, statements } = yield* statementsOf(service.spin(user("counted")))
        const expected = [
          "INSERT INTO wheel_client_seeds AS s",
          "INSERT INTO spins",
          ...(result.segment.value === 0 ? [] : ["WITH tx AS"]),
          "SELECT unit, balance FROM ledger_account"
        ]
        assert.deepStrictEqual(shape(statements), expected, statements.join("\n"))
        assert.include(statements[0], "ON CONFLICT (user_id) DO UPDATE SET next_nonce = s.next_nonce + 1")
        // A second spin in the round: the claim and the refused insert, then a rollback.
        const refused = yield* statementsOf(Effect.exit(service.spin(user("counted"))))
        assert.deepStrictEqual(shape(refused.statements), ["INSERT INTO wheel_client_seeds AS s", "INSERT INTO spins"])
        // ...which gave the nonce back.
        assert.strictEqual((yield* service.clientSeed(user("counted"))).nonce, 1)
      }).pipe(withTestClock)
    )

    it.effect("record: either unique key refuses with AlreadySpun and leaves the transaction usable", () =>
      Effect.gen(function* () {
        const spins = yield* SpinRepository
        const sql = yield* SqlClient.SqlClient
        const count = (userId: string) =>
          Effect.map(
            sql<{ n: number }>`SELECT count(*)::int AS n FROM spins WHERE user_id = ${userId}`,
            (rows) => rows[0]?.n ?? -1
          )
        yield* spins.record(spinOf("recorder", "2026-05-01", "key-1"))
        const outcomes = yield* sql.withTransaction(
          Effect.gen(function* () {
            // Same user and round, another key: a second spin in the round.
            const sameRound = yield* Effect.flip(spins.record(spinOf("recorder", "2026-05-01", "key-2")))
            // Same user and key, another round: the key's first request already spun.
            const sameKey = yield* Effect.flip(spins.record(spinOf("recorder", "2026-05-02", "key-1")))
            // Neither refusal aborted the transaction: it goes on and commits.
            yield* spins.record(spinOf("recorder", "2026-05-03", "key-3"))
            return [sameRound._tag, sameKey._tag, sameRound.round, sameKey.round]
          })
        )
        assert.deepStrictEqual(outcomes, ["AlreadySpun", "AlreadySpun", "2026-05-01", "2026-05-02"])
        assert.strictEqual(yield* count("recorder"), 2)
        // Another user with the same key and round is a spin of its own.
        yield* spins.record(spinOf("someone-else", "2026-05-01", "key-1"))
        assert.strictEqual(yield* count("someone-else"), 1)
        // Without a key, only the round counts.
        yield* spins.record(spinOf("keyless", "2026-05-01", null))
        yield* spins.record(spinOf("keyless", "2026-05-02", null))
        const refused = yield* Effect.flip(spins.record(spinOf("keyless", "2026-05-02", null)))
        assert.strictEqual(refused._tag, "AlreadySpun")
        assert.strictEqual(yield* count("keyless"), 2)
      })
    )
  })
})
