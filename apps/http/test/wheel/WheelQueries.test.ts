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
        // The spin's INSERT, on its own or heading the statement that also posts its prize.
        const inserts = statements.filter((text) => text.includes("INSERT INTO spins"))
        assert.strictEqual(inserts.length, 1)
        assert.include(inserts[0], "ON CONFLICT DO NOTHING")
        const again = yield* Effect.exit(service.spin(user("spinner")))
        assert.isTrue(Exit.isFailure(again))
        assert.strictEqual(Option.getOrThrow(Exit.findErrorOption(again))._tag, "AlreadySpun")
      }).pipe(withTestClock)
    )

    it.effect("a spin is the claim, one write (with its prize and notification) and the balance read", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-05-01T12:00:00Z"))
        const service = yield* SpinAndWinService
        yield* service.view(user("counted"))
        const shape = (statements: ReadonlyArray<string>) =>
          statements.map((text) => text.split(" (")[0]!.split(" WHERE")[0]!.slice(0, 40))
        // Between BEGIN and COMMIT: the claim of the client seed (issue 17), then one write. A prize
        // is posted and announced in the spin's own INSERT statement (issue 16); before, the posting
        // and the outbox row were two statements more. The balance is read after the commit.
        const { result, statements } = yield* statementsOf(service.spin(user("counted")))
        const write = result.segment.value === 0 ? "INSERT INTO spins" : "WITH recorded AS"
        const expected = ["INSERT INTO wheel_client_seeds AS s", write, "SELECT unit, balance FROM ledger_account"]
        assert.deepStrictEqual(shape(statements), expected, statements.join("\n"))
        assert.include(statements[0], "ON CONFLICT (user_id) DO UPDATE SET next_nonce = s.next_nonce + 1")
        if (result.segment.value !== 0) {
          assert.include(statements[1], "INSERT INTO ledger_transactions")
          assert.include(statements[1], "INSERT INTO notification_outbox")
        }
        // A second spin in the round: the claim and the refused write, then a rollback.
        const refused = shape((yield* statementsOf(Effect.exit(service.spin(user("counted"))))).statements)
        assert.strictEqual(refused.length, 2, refused.join("\n"))
        assert.strictEqual(refused[0], "INSERT INTO wheel_client_seeds AS s")
        assert.oneOf(refused[1], ["INSERT INTO spins", "WITH recorded AS"])
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
