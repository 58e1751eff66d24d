import { Context, DateTime, Effect, Layer, Option } from "effect"
import { ChallengeRepository } from "./ChallengeRepository.ts"
import { ChallengeEnded, ChallengeNotFound, ConcurrentUpdate } from "./Errors.ts"
import type { Challenge, ChallengeId, ChallengeInput, Page } from "./Model.ts"

/**
 * How many times an update without a caller-given version is tried. Each lost attempt means some
 * other update of the same challenge succeeded in between, so this many concurrent writers of one
 * challenge all get through.
 */
export const UPDATE_ATTEMPTS = 5

export interface UpdateOptions {
  /**
   * The version the caller last saw (an `If-Match`). When given, the update is applied only to
   * that version and fails `ConcurrentUpdate` otherwise, with no retry.
   */
  readonly expectedVersion?: number | undefined
}

/** The trivia challenge use cases, behind the admin and player endpoints. */
export class TriviaService extends Context.Service<
  TriviaService,
  {
    readonly create: (input: ChallengeInput) => Effect.Effect<Challenge>
    readonly get: (id: ChallengeId) => Effect.Effect<Challenge, ChallengeNotFound>
    readonly list: (page: Page) => Effect.Effect<ReadonlyArray<Challenge>>
    /**
     * Full replacement of a challenge that has not ended (its stored `endTime` is still ahead of
     * the clock). The check and the write are tied by the version read: if the challenge changes
     * in between, nothing is written and the update starts over from a fresh read, ended-check
     * included. Concurrent updates are therefore applied one after the other, each to the state
     * the previous one left, each getting its own version; none is lost unseen. Only after
     * {@link UPDATE_ATTEMPTS} lost races (or at once, with `expectedVersion`) does it fail
     * `ConcurrentUpdate`.
     */
    readonly update: (
      id: ChallengeId,
      input: ChallengeInput,
      options?: UpdateOptions
    ) => Effect.Effect<Challenge, ChallengeNotFound | ChallengeEnded | ConcurrentUpdate>
  }
>()("@payments-gaming/domain/trivia/TriviaService") {
  /** Needs a `ChallengeRepository`; time comes from Effect's `Clock`. */
  static readonly layer = Layer.effect(
    TriviaService,
    Effect.gen(function* () {
      const repository = yield* ChallengeRepository

      const create = Effect.fn("TriviaService.create")(function* (input: ChallengeInput) {
        const now = yield* DateTime.now
        return yield* repository.create(input, now)
      })

      const get = Effect.fn("TriviaService.get")(function* (id: ChallengeId) {
        const found = yield* repository.findById(id)
        if (Option.isNone(found)) return yield* new ChallengeNotFound({ challengeId: id })
        return found.value
      })

      const list = Effect.fn("TriviaService.list")(function* (page: Page) {
        return yield* repository.list(page)
      })

      const updateOnce = Effect.fnUntraced(function* (
        id: ChallengeId,
        input: ChallengeInput,
        expectedVersion: number | undefined
      ) {
        const current = yield* get(id)
        const now = yield* DateTime.now
        if (current.hasEndedAt(now)) {
          return yield* new ChallengeEnded({ challengeId: id, endTime: current.endTime })
        }
        if (expectedVersion !== undefined && current.version !== expectedVersion) {
          return yield* new ConcurrentUpdate({ challengeId: id, expectedVersion })
        }
        return yield* repository.update(id, input, current.version, now)
      })

      const update = Effect.fn("TriviaService.update")(function* (
        id: ChallengeId,
        input: ChallengeInput,
        options?: UpdateOptions
      ) {
        const expectedVersion = options?.expectedVersion
        if (expectedVersion !== undefined) return yield* updateOnce(id, input, expectedVersion)
        const attempt = (
          number: number
        ): Effect.Effect<Challenge, ChallengeNotFound | ChallengeEnded | ConcurrentUpdate> =>
          updateOnce(id, input, undefined).pipe(
            Effect.catchTag("ConcurrentUpdate", (conflict) =>
              number < UPDATE_ATTEMPTS
                ? Effect.logDebug("Challenge changed during update; retrying").pipe(Effect.andThen(attempt(number + 1)))
                : Effect.fail(conflict)
            )
          )
        return yield* attempt(1)
      })

      return TriviaService.of({ create, get, list, update })
    })
  )
}
