import { Context, type Effect, type Option } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { Cause } from "../ledger/LedgerRecorder.ts"
import type { AlreadySpun } from "./Errors.ts"
import type { RoundId, RoundWindow } from "./Round.ts"
import type { IdempotencyKey, Spin, SpinPage } from "./Spin.ts"

/** What recording a spin did. */
export type SpinRecord =
  /** Recorded, its nonce taken; `coins`: the player's coin balance with this spin's prize. */
  | { readonly _tag: "Recorded"; readonly coins: bigint }
  /**
   * Nothing written: the client seed or nonce the spin was drawn with is no longer the player's
   * next one (a spin or a new seed of theirs committed in between). Draw again with the current ones.
   */
  | { readonly _tag: "Stale" }
  /** Nothing written: by the store's clock, at the write, the spin's round was not open (issue 34). */
  | { readonly _tag: "Closed" }

/**
 * Recorded spins. A spin is written by the ledger, with its prize's posting (`spun`, recorded by
 * `LedgerRecorder.record`): one write, atomic on its own; its refusal (AlreadySpun) would abort a
 * SQL transaction it ran in, so it runs on its own. The reads run inside the caller's `UnitOfWork`
 * when there is one.
 */
export class SpinRepository extends Context.Service<
  SpinRepository,
  {
    /**
     * The spin as the cause of its prize's posting, for `LedgerRecorder.record(spun, prize)`, which
     * records it, taking the nonce it was drawn with (the player's next client seed and nonce: the
     * stored next nonce moves on by one; a player with no stored seed is at nonce 0 of the seed the
     * spin carries, which is then stored), with the prize's posting and notification, all
     * atomically: one write that needs no transaction (issue 16). The prize is posted only when the
     * spin is recorded. The write answers:
     * `Recorded` with the player's coin balance, this prize included; `Stale`, writing nothing,
     * when the seed or nonce is no longer the player's next (the check and the advance are one, so
     * a seed set concurrently lands wholly before or after the spin, and the nonce counts recorded
     * spins); `Closed`, writing nothing, unless the store's own clock (the database's `now()`, read
     * by the same write) is inside `open`, the bounds of the spin's round: a spin that reaches the
     * store after its round ended is never recorded, whatever the caller's clock said.
     * It is refused with `AlreadySpun`, writing nothing, by the rule "one spin per user per round"
     * (`oneSpinPerRound`: a second spin of the user in the round, or under the same idempotency
     * key), which the store enforces atomically with the write (a unique index in SQL), so
     * concurrent spins of one user cannot both be recorded.
     */
    spun(spin: Spin, open: RoundWindow): Cause<SpinRecord, AlreadySpun>
    findByIdempotencyKey(userId: UserId, key: IdempotencyKey): Effect.Effect<Option.Option<Spin>>
    /** The round's spins in the order they were made, optionally only one user's. */
    listRound(round: RoundId, page: SpinPage, userId?: UserId | undefined): Effect.Effect<ReadonlyArray<Spin>>
  }
>()("@payments-gaming/domain/wheel/SpinRepository") {}
