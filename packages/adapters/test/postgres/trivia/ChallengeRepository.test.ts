import { assert, describe, layer } from "@effect/vitest"
import { challengeInput, staleUpdate } from "@payments-gaming/domain/test/support/triviaFixtures"
import { type Challenge, ChallengeId, ChallengeRepository, TriviaService } from "@payments-gaming/domain/trivia"
import { BigDecimal, DateTime, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { TriviaOnPostgres } from "../support/TriviaTestDatabase.ts"

const input = challengeInput

const iso = DateTime.formatIso
const dec = BigDecimal.fromStringUnsafe

describe("ChallengeRepository on PostgreSQL", () => {
  layer(TriviaOnPostgres, { timeout: "60 seconds" })((it) => {
    it.effect("create then findById round-trips every field; the id is a JS number", () =>
      Effect.gen(function* () {
        const repository = yield* ChallengeRepository
        const created = yield* repository.create(
          input({
            title: "Round trip",
            prizeAmount: 1234567.89,
            startTime: "2030-05-06T07:08:09.123Z",
            endTime: "2030-05-06T08:09:10.999Z",
            questionType: 7,
            questionCount: 100,
            numberOfWinners: 12,
            sharingFormula: "PROPORTIONAL"
          }),
          DateTime.makeUnsafe("2029-11-21T18:30:12.987Z")
        )
        assert.strictEqual(typeof created.id, "number")
        assert.isTrue(Number.isSafeInteger(created.id) && created.id >= 1)
        assert.strictEqual(created.version, 1)
        const found = yield* repository.findById(created.id)
        assert.strictEqual(found._tag, "Some")
        const stored = found._tag === "Some" ? found.value : created
        assert.deepStrictEqual(stored, created)
        assert.strictEqual(stored.title, "Round trip")
        assert.strictEqual(BigDecimal.format(stored.prizeAmount), "1234567.89")
        assert.strictEqual(iso(stored.startTime), "2030-05-06T07:08:09.123Z")
        assert.strictEqual(iso(stored.endTime), "2030-05-06T08:09:10.999Z")
        assert.strictEqual(iso(stored.createdAt), "2029-11-21T18:30:12.987Z")
        assert.strictEqual(iso(stored.updatedAt), "2029-11-21T18:30:12.987Z")
        assert.deepStrictEqual(
          [stored.questionType, stored.questionCount, stored.numberOfWinners, stored.sharingFormula],
          [7, 100, 12, "PROPORTIONAL"]
        )
      })
    )

    it.effect("prize amounts are stored and read back exactly", () =>
      Effect.gen(function* () {
        const repository = yield* ChallengeRepository
        const sql = yield* SqlClient.SqlClient
        const now = yield* DateTime.now
        for (const amount of [0, 0.01, 0.1, 0.29, 1234567.89, 100, 999999999999.99]) {
          const created = yield* repository.create(input({ prizeAmount: amount }), now)
          const rows = yield* sql<{ text: string }>`SELECT prize_amount::text AS text FROM trivia_challenges
            WHERE id = ${created.id}`
          assert.strictEqual(rows[0]?.text, amount.toFixed(2))
          const found = yield* repository.findById(created.id)
          assert.isTrue(found._tag === "Some" && BigDecimal.equals(found.value.prizeAmount, dec(String(amount))))
        }
      })
    )

    it.effect("findById of an unknown id is None", () =>
      Effect.gen(function* () {
        const repository = yield* ChallengeRepository
        const found = yield* repository.findById(ChallengeId.make(987654321))
        assert.strictEqual(found._tag, "None")
      })
    )

    it.effect("update replaces the fields, bumps the version and keeps createdAt", () =>
      Effect.gen(function* () {
        const repository = yield* ChallengeRepository
        const created = yield* repository.create(input(), DateTime.makeUnsafe("2029-01-01T00:00:00.000Z"))
        const replacement = input({
          title: "Replaced",
          prizeAmount: 42.5,
          startTime: "2031-02-03T04:05:06.007Z",
          endTime: "2031-02-03T05:05:06.008Z",
          questionType: 3,
          questionCount: 5,
          numberOfWinners: 2,
          sharingFormula: "PROPORTIONAL"
        })
        const updated = yield* repository.update(
          created.id,
          replacement,
          1,
          DateTime.makeUnsafe("2029-01-01T01:30:00.000Z")
        )
        assert.strictEqual(updated.version, 2)
        assert.strictEqual(updated.title, "Replaced")
        assert.strictEqual(BigDecimal.format(updated.prizeAmount), "42.5")
        assert.strictEqual(iso(updated.startTime), "2031-02-03T04:05:06.007Z")
        assert.strictEqual(iso(updated.createdAt), "2029-01-01T00:00:00.000Z")
        assert.strictEqual(iso(updated.updatedAt), "2029-01-01T01:30:00.000Z")
        const found = yield* repository.findById(created.id)
        assert.isTrue(found._tag === "Some" && found.value.version === 2 && found.value.title === "Replaced")
      })
    )

    it.effect("a stale version fails ConcurrentUpdate and changes nothing", () =>
      Effect.gen(function* () {
        const repository = yield* ChallengeRepository
        const now = yield* DateTime.now
        const created = yield* repository.create(input({ title: "Original" }), now)
        yield* repository.update(created.id, input({ title: "First" }), 1, now)
        const error = yield* Effect.flip(repository.update(created.id, input({ title: "Stale" }), 1, now))
        assert.strictEqual(error._tag, "ConcurrentUpdate")
        if (error._tag === "ConcurrentUpdate") assert.strictEqual(error.expectedVersion, 1)
        const found = yield* repository.findById(created.id)
        assert.isTrue(found._tag === "Some" && found.value.title === "First" && found.value.version === 2)
      })
    )

    it.effect("two writers with the same version: exactly one wins", () =>
      Effect.gen(function* () {
        const repository = yield* ChallengeRepository
        const now = yield* DateTime.now
        const created = yield* repository.create(input(), now)
        const results = yield* Effect.all(
          ["A", "B"].map((title) => Effect.result(repository.update(created.id, input({ title }), 1, now))),
          { concurrency: "unbounded" }
        )
        const wins = results.filter((result) => result._tag === "Success")
        const losses = results.filter((result) => result._tag === "Failure")
        assert.strictEqual(wins.length, 1)
        assert.strictEqual(losses.length, 1)
        assert.strictEqual(losses[0]?._tag === "Failure" ? losses[0].failure._tag : "", "ConcurrentUpdate")
        const found = yield* repository.findById(created.id)
        const winner = wins[0]?._tag === "Success" ? wins[0].success : undefined
        assert.isTrue(found._tag === "Some" && found.value.version === 2 && found.value.title === winner?.title)
      })
    )

    it.effect("update of an unknown id fails ChallengeNotFound", () =>
      Effect.gen(function* () {
        const repository = yield* ChallengeRepository
        const error = yield* Effect.flip(
          repository.update(ChallengeId.make(987654321), input(), 1, yield* DateTime.now)
        )
        assert.strictEqual(error._tag, "ChallengeNotFound")
      })
    )

    it.effect("the table refuses an end not after the start", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const error = yield* Effect.flip(sql`INSERT INTO trivia_challenges (title, prize_amount, start_time, end_time,
            question_type, question_count, number_of_winners, sharing_formula, created_at, updated_at)
          VALUES ('x', 1, now(), now(), 1, 1, 1, 'EQUAL', now(), now())`)
        assert.strictEqual(error._tag, "SqlError")
      })
    )
  })
})

describe("TriviaService on PostgreSQL", () => {
  layer(TriviaOnPostgres, { timeout: "60 seconds" })((it) => {
    it.effect("lists by start time, then id, in pages", () =>
      Effect.gen(function* () {
        const service = yield* TriviaService
        const create = (day: string, title: string) =>
          service.create(
            input({ title, startTime: `2030-01-${day}T10:00:00.000Z`, endTime: `2030-02-01T00:00:00.000Z` })
          )
        const c = yield* create("03", "c")
        const a = yield* create("01", "a")
        const b1 = yield* create("02", "b1")
        const b2 = yield* create("02", "b2")
        const ids = (page: ReadonlyArray<Challenge>) => page.map((challenge) => challenge.id)
        assert.deepStrictEqual(ids(yield* service.list({ limit: 50, offset: 0 })), [a.id, b1.id, b2.id, c.id])
        assert.deepStrictEqual(ids(yield* service.list({ limit: 2, offset: 0 })), [a.id, b1.id])
        assert.deepStrictEqual(ids(yield* service.list({ limit: 2, offset: 2 })), [b2.id, c.id])
        assert.deepStrictEqual(ids(yield* service.list({ limit: 2, offset: 4 })), [])
      })
    )

    it.effect("get and update of an unknown id fail ChallengeNotFound", () =>
      Effect.gen(function* () {
        const service = yield* TriviaService
        const missing = ChallengeId.make(424242)
        assert.strictEqual((yield* Effect.flip(service.get(missing)))._tag, "ChallengeNotFound")
        assert.strictEqual((yield* Effect.flip(service.update(missing, input())))._tag, "ChallengeNotFound")
      })
    )

    it.effect("an ended challenge cannot be updated", () =>
      Effect.gen(function* () {
        // Small TestClock steps only: the SQL pool's own timers run on the test clock too, and a
        // jump of years makes them fire for every period in between.
        const service = yield* TriviaService
        const now = yield* DateTime.now
        const times = {
          startTime: iso(DateTime.subtract(now, { hours: 1 })),
          endTime: iso(DateTime.add(now, { seconds: 1 }))
        }
        const created = yield* service.create(input(times))
        const before = yield* service.update(created.id, input({ ...times, title: "Still running" }))
        assert.strictEqual(before.version, 2)
        yield* TestClock.adjust("1 second")
        const error = yield* Effect.flip(service.update(created.id, input({ endTime: "2030-06-01T00:00:00.000Z" })))
        assert.strictEqual(error._tag, "ChallengeEnded")
        const stored = yield* service.get(created.id)
        assert.strictEqual(stored.version, 2)
        assert.strictEqual(stored.title, "Still running")
      })
    )

    // The design: a write that loses the race is retried from a fresh read, so concurrent updates
    // are all applied one after another. None is lost silently: each gets its own version, and
    // the stored state is exactly the one whose update got the last version.
    for (const writers of [2, 5]) {
      it.effect(`${writers} concurrent updates are applied in sequence, each with its own version`, () =>
        Effect.gen(function* () {
          const service = yield* TriviaService
          const created = yield* service.create(input())
          const titles = Array.from({ length: writers }, (_, index) => `Writer ${index}`)
          const results = yield* Effect.all(
            titles.map((title) => service.update(created.id, input({ title }))),
            { concurrency: "unbounded" }
          )
          const versions = results.map((result) => result.version).sort((x, y) => x - y)
          assert.deepStrictEqual(
            versions,
            Array.from({ length: writers }, (_, index) => index + 2)
          )
          const last = results.find((result) => result.version === writers + 1)!
          const stored = yield* service.get(created.id)
          assert.strictEqual(stored.version, writers + 1)
          assert.strictEqual(stored.title, last.title)
          assert.deepStrictEqual(stored, last)
        })
      )
    }

    it.effect("with expectedVersion, a stale update fails ConcurrentUpdate", () =>
      Effect.gen(function* () {
        const service = yield* TriviaService
        const created = yield* staleUpdate(service, "Newer", "Older")
        assert.strictEqual((yield* service.get(created.id)).title, "Newer")
      })
    )
  })
})

describe("ChallengeRepository ids", () => {
  layer(TriviaOnPostgres, { timeout: "60 seconds" })((it) => {
    it.effect("the largest id the API can carry comes back as an exact JS number", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`ALTER TABLE trivia_challenges ALTER COLUMN id RESTART WITH 9007199254740991`
        const repository = yield* ChallengeRepository
        const created = yield* repository.create(input(), yield* DateTime.now)
        assert.strictEqual(created.id, Number.MAX_SAFE_INTEGER)
        const found = yield* repository.findById(created.id)
        assert.isTrue(found._tag === "Some" && found.value.id === Number.MAX_SAFE_INTEGER)
      })
    )
  })
})
