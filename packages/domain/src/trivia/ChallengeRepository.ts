import { Context, type DateTime, type Effect, type Option } from "effect"
import type { ChallengeNotFound, ConcurrentUpdate } from "./Errors.ts"
import type { Challenge, ChallengeId, ChallengeInput, Page } from "./Model.ts"

/**
 * Where challenges are kept. Storage failures are not part of these signatures: an adapter that
 * cannot reach its store dies, and the driving app answers 500.
 */
export class ChallengeRepository extends Context.Service<
  ChallengeRepository,
  {
    /** Stores a new challenge at version 1, with a fresh id, created and updated `at`. */
    readonly create: (input: ChallengeInput, at: DateTime.Utc) => Effect.Effect<Challenge>
    readonly findById: (id: ChallengeId) => Effect.Effect<Option.Option<Challenge>>
    /** Challenges by `startTime`, then `id`, both ascending. */
    readonly list: (page: Page) => Effect.Effect<ReadonlyArray<Challenge>>
    /**
     * Replaces every input field and bumps the version by one, only if the stored version is
     * still `expectedVersion`: a compare-and-set, so a write based on a stale read never lands.
     */
    readonly update: (
      id: ChallengeId,
      input: ChallengeInput,
      expectedVersion: number,
      at: DateTime.Utc
    ) => Effect.Effect<Challenge, ChallengeNotFound | ConcurrentUpdate>
  }
>()("@payments-gaming/domain/trivia/ChallengeRepository") {}
