import { assert } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ChallengeInput } from "../../src/trivia/Model.ts"
import type { TriviaService } from "../../src/trivia/TriviaService.ts"

/** A valid challenge as the API receives it, with `overrides`, decoded. */
export const challengeInput = (overrides: Partial<Record<keyof typeof ChallengeInput.Encoded, unknown>> = {}) =>
  Schema.decodeUnknownSync(ChallengeInput)({
    title: "Quiz",
    prizeAmount: 1000,
    startTime: "2030-01-01T18:00:00.000Z",
    endTime: "2030-01-01T19:00:00.000Z",
    questionType: 1,
    questionCount: 10,
    numberOfWinners: 3,
    sharingFormula: "EQUAL",
    ...overrides
  })

/**
 * A new challenge updated at version 1 to the title `newer`, then again at version 1 to `older`:
 * the second, stale, update must fail ConcurrentUpdate. Returns the challenge as created.
 */
export const staleUpdate = (service: TriviaService["Service"], newer: string, older: string) =>
  Effect.gen(function* () {
    const created = yield* service.create(challengeInput())
    yield* service.update(created.id, challengeInput({ title: newer }), { expectedVersion: 1 })
    const error = yield* Effect.flip(
      service.update(created.id, challengeInput({ title: older }), { expectedVersion: 1 })
    )
    assert.strictEqual(error._tag, "ConcurrentUpdate")
    return created
  })
