import { Context, type Effect, type Option } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { NotifiedPosting } from "../notifications/NotifiedPosting.ts"
import type { AlreadySpun } from "./Errors.ts"
import type { RoundId } from "./Round.ts"
import type { IdempotencyKey, Spin, SpinPage } from "./Spin.ts"

/** Recorded spins. Runs inside the caller's `UnitOfWork` when there is one. */
export class SpinRepository extends Context.Service<
  SpinRepository,
  {
    /**
     * Records a spin, with its `prize` (the prize's posting and notification) atomically: the
     * posting is made only when the spin is recorded. Fails `AlreadySpun`, recording nothing, when
     * the user already has a spin in that round or a spin under the same idempotency key: the store
     * enforces both (a unique index in SQL), so concurrent spins of one user cannot both be recorded.
     */
    record(spin: Spin, prize?: NotifiedPosting): Effect.Effect<void, AlreadySpun>
    findByIdempotencyKey(userId: UserId, key: IdempotencyKey): Effect.Effect<Option.Option<Spin>>
    /** The round's spins in the order they were made, optionally only one user's. */
    listRound(round: RoundId, page: SpinPage, userId?: UserId | undefined): Effect.Effect<ReadonlyArray<Spin>>
  }
>()("@payments-gaming/domain/wheel/SpinRepository") {}
