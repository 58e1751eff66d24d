import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, DateTime, Effect, Layer, Ref } from "effect"
import { TestClock } from "effect/testing"
import { ChallengeRepository } from "../../src/trivia/ChallengeRepository.ts"
import { ChallengeId } from "../../src/trivia/Model.ts"
import { TriviaService, UPDATE_ATTEMPTS } from "../../src/trivia/TriviaService.ts"
import { layerMemory, makeMemoryRepository } from "../../src/trivia/testing.ts"
import { challengeInput, staleUpdate } from "../support/triviaFixtures.ts"

const input = challengeInput

const millis = (iso: string) => new Date(iso).getTime()

/** The service and a challenge created through it, the clock first set to `iso` when given. */
const withCreated = (iso?: string) =>
  Effect.gen(function* () {
    if (iso !== undefined) yield* TestClock.setTime(millis(iso))
    const service = yield* TriviaService
    return { service, created: yield* service.create(input()) }
  })

const Memory = TriviaService.layer.pipe(Layer.provideMerge(layerMemory))

/** A repository whose next `update` is preceded by someone else's update of the same challenge. */
const interfering = (intruder: ReturnType<typeof input>, times: number) =>
  Layer.effect(
    ChallengeRepository,
    Effect.gen(function* () {
      const inner = yield* makeMemoryRepository
      const left = yield* Ref.make(times)
      const calls = yield* Ref.make(0)
      return ChallengeRepository.of({
        ...inner,
        update: (id, next, expectedVersion, at) =>
          Effect.gen(function* () {
            yield* Ref.update(calls, (n) => n + 1)
            if ((yield* Ref.getAndUpdate(left, (n) => n - 1)) > 0) {
              yield* inner.update(id, intruder, expectedVersion, at)
            }
            return yield* inner.update(id, next, expectedVersion, at)
          })
      })
    })
  )

describe("TriviaService", () => {
  it.effect("creates challenges at version 1 with fresh ids and the clock's time", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(millis("2029-06-01T12:00:00.123Z"))
      const service = yield* TriviaService
      const first = yield* service.create(input({ title: "First" }))
      const second = yield* service.create(input({ title: "Second" }))
      assert.deepStrictEqual([first.id, second.id], [1, 2])
      assert.strictEqual(first.version, 1)
      assert.strictEqual(DateTime.formatIso(first.createdAt), "2029-06-01T12:00:00.123Z")
      assert.isTrue(DateTime.Equivalence(first.createdAt, first.updatedAt))
      const found = yield* service.get(second.id)
      assert.strictEqual(found.title, "Second")
    }).pipe(Effect.provide(Memory))
  )

  it.effect("get fails ChallengeNotFound for an unknown id", () =>
    Effect.gen(function* () {
      const service = yield* TriviaService
      const error = yield* Effect.flip(service.get(ChallengeId.make(99)))
      assert.strictEqual(error._tag, "ChallengeNotFound")
      assert.strictEqual(error.challengeId, 99)
      assert.strictEqual(error.message, "Challenge with id 99 not found")
    }).pipe(Effect.provide(Memory))
  )

  it.effect("lists by start time, then id, one page at a time", () =>
    Effect.gen(function* () {
      const service = yield* TriviaService
      const late = yield* service.create(
        input({ startTime: "2030-03-01T00:00:00.000Z", endTime: "2030-03-02T00:00:00.000Z" })
      )
      const early = yield* service.create(
        input({ startTime: "2030-01-01T00:00:00.000Z", endTime: "2030-01-02T00:00:00.000Z" })
      )
      const tieA = yield* service.create(
        input({ startTime: "2030-02-01T00:00:00.000Z", endTime: "2030-02-02T00:00:00.000Z" })
      )
      const tieB = yield* service.create(
        input({ startTime: "2030-02-01T00:00:00.000Z", endTime: "2030-02-03T00:00:00.000Z" })
      )
      const all = yield* service.list({ limit: 10, offset: 0 })
      assert.deepStrictEqual(
        all.map((c) => c.id),
        [early.id, tieA.id, tieB.id, late.id]
      )
      const page = yield* service.list({ limit: 2, offset: 1 })
      assert.deepStrictEqual(
        page.map((c) => c.id),
        [tieA.id, tieB.id]
      )
      assert.deepStrictEqual(yield* service.list({ limit: 5, offset: 4 }), [])
    }).pipe(Effect.provide(Memory))
  )

  it.effect("update replaces every field, bumps the version and keeps createdAt", () =>
    Effect.gen(function* () {
      const { service, created } = yield* withCreated("2029-06-01T00:00:00.000Z")
      yield* TestClock.adjust("1 hour")
      const replacement = input({
        title: "Renamed",
        prizeAmount: 1234567.89,
        startTime: "2030-05-01T00:00:00.000Z",
        endTime: "2030-05-01T01:00:00.000Z",
        questionType: 4,
        questionCount: 20,
        numberOfWinners: 5,
        sharingFormula: "PROPORTIONAL"
      })
      const updated = yield* service.update(created.id, replacement)
      assert.strictEqual(updated.version, 2)
      assert.strictEqual(updated.title, "Renamed")
      assert.isTrue(BigDecimal.equals(updated.prizeAmount, BigDecimal.fromStringUnsafe("1234567.89")))
      assert.strictEqual(updated.sharingFormula, "PROPORTIONAL")
      assert.strictEqual(DateTime.formatIso(updated.createdAt), "2029-06-01T00:00:00.000Z")
      assert.strictEqual(DateTime.formatIso(updated.updatedAt), "2029-06-01T01:00:00.000Z")
      assert.deepStrictEqual(yield* service.get(created.id), updated)
    }).pipe(Effect.provide(Memory))
  )

  it.effect("update fails ChallengeNotFound for an unknown id", () =>
    Effect.gen(function* () {
      const service = yield* TriviaService
      const error = yield* Effect.flip(service.update(ChallengeId.make(5), input()))
      assert.strictEqual(error._tag, "ChallengeNotFound")
    }).pipe(Effect.provide(Memory))
  )

  it.effect("update is refused from the stored end time on, whatever the new end time", () =>
    Effect.gen(function* () {
      const { service, created } = yield* withCreated()
      yield* TestClock.setTime(millis("2030-01-01T18:59:59.999Z"))
      const justInTime = yield* service.update(created.id, input({ title: "Last minute" }))
      assert.strictEqual(justInTime.version, 2)
      yield* TestClock.adjust("1 millis")
      const error = yield* Effect.flip(service.update(created.id, input({ endTime: "2031-01-01T00:00:00.000Z" })))
      assert.strictEqual(error._tag, "ChallengeEnded")
      if (error._tag === "ChallengeEnded")
        assert.strictEqual(DateTime.formatIso(error.endTime), "2030-01-01T19:00:00.000Z")
      assert.strictEqual((yield* service.get(created.id)).version, 2)
    }).pipe(Effect.provide(Memory))
  )

  it.effect("an update may end a running challenge early, after which it is frozen", () =>
    Effect.gen(function* () {
      const { service, created } = yield* withCreated("2030-01-01T18:30:00.000Z")
      yield* service.update(created.id, input({ endTime: "2030-01-01T18:15:00.000Z" }))
      const error = yield* Effect.flip(service.update(created.id, input()))
      assert.strictEqual(error._tag, "ChallengeEnded")
    }).pipe(Effect.provide(Memory))
  )

  it.effect("with expectedVersion, a stale version fails ConcurrentUpdate and writes nothing", () =>
    Effect.gen(function* () {
      const service = yield* TriviaService
      const created = yield* staleUpdate(service, "Second", "Stale")
      const stored = yield* service.get(created.id)
      assert.strictEqual(stored.title, "Second")
      assert.strictEqual(stored.version, 2)
    }).pipe(Effect.provide(Memory))
  )

  it.effect("a write that loses a race is retried from a fresh read: both updates apply, in order", () =>
    Effect.gen(function* () {
      const { service, created } = yield* withCreated()
      const updated = yield* service.update(created.id, input({ title: "Mine" }))
      // version 2 went to the intruder, version 3 to the retried update
      assert.strictEqual(updated.title, "Mine")
      assert.strictEqual(updated.version, 3)
      assert.deepStrictEqual(yield* service.get(created.id), updated)
    }).pipe(Effect.provide(TriviaService.layer.pipe(Layer.provideMerge(interfering(input({ title: "Theirs" }), 1)))))
  )

  it.effect("the retry checks the end again: a race that ended the challenge wins", () =>
    Effect.gen(function* () {
      const { service, created } = yield* withCreated("2030-01-01T18:30:00.000Z")
      const error = yield* Effect.flip(service.update(created.id, input({ title: "Too late" })))
      assert.strictEqual(error._tag, "ChallengeEnded")
      const stored = yield* service.get(created.id)
      assert.strictEqual(stored.title, "Quiz")
      assert.strictEqual(stored.version, 2)
    }).pipe(
      Effect.provide(
        TriviaService.layer.pipe(
          Layer.provideMerge(interfering(input({ title: "Quiz", endTime: "2030-01-01T18:10:00.000Z" }), 1))
        )
      )
    )
  )

  it.effect(`gives up with ConcurrentUpdate after ${UPDATE_ATTEMPTS} lost races`, () =>
    Effect.gen(function* () {
      const { service, created } = yield* withCreated()
      const error = yield* Effect.flip(service.update(created.id, input({ title: "Never" })))
      assert.strictEqual(error._tag, "ConcurrentUpdate")
      const stored = yield* service.get(created.id)
      assert.strictEqual(stored.version, 1 + UPDATE_ATTEMPTS)
      assert.strictEqual(stored.title, "Intruder")
    }).pipe(
      Effect.provide(TriviaService.layer.pipe(Layer.provideMerge(interfering(input({ title: "Intruder" }), 1000))))
    )
  )

  it.effect(`succeeds when it loses ${UPDATE_ATTEMPTS - 1} races`, () =>
    Effect.gen(function* () {
      const { service, created } = yield* withCreated()
      const updated = yield* service.update(created.id, input({ title: "Finally" }))
      assert.strictEqual(updated.version, 1 + UPDATE_ATTEMPTS)
      assert.strictEqual(updated.title, "Finally")
    }).pipe(
      Effect.provide(
        TriviaService.layer.pipe(Layer.provideMerge(interfering(input({ title: "Intruder" }), UPDATE_ATTEMPTS - 1)))
      )
    )
  )
})
