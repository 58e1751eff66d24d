import { Context, type Effect, type Option } from "effect"
import type { RoundId } from "./Round.ts"
import type { RoundSeed } from "./Spin.ts"

/** The server seed of each round: created on first use, secret while the round runs, public after. */
export class RoundSeeds extends Context.Service<
  RoundSeeds,
  {
    /**
     * The round's seed, storing `fresh` first if the round has none. Safe under concurrency: every
     * caller gets the one seed that was stored first, never its own unsaved candidate. `fresh` runs
     * only when no seed is stored yet.
     */
    getOrCreate(round: RoundId, fresh: Effect.Effect<RoundSeed>): Effect.Effect<RoundSeed>
    /**
     * The seed of a round that ended before `current`; `None` for the current round, a later one, or
     * a round that never had a seed. The store applies `round < current` itself (in SQL, in the
     * query), not only the caller.
     */
    revealed(round: RoundId, current: RoundId): Effect.Effect<Option.Option<RoundSeed>>
  }
>()("@payments-gaming/domain/wheel/RoundSeeds") {}
