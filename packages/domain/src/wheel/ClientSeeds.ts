import { Context, type Effect, type Option } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { ClientSeed } from "./ClientSeed.ts"
import type { ClientSeedState } from "./Views.ts"

/**
 * Each player's client seed and the nonce of their next spin. A player without a row has never set
 * a seed nor spun since client seeds exist: their default seed (derived by the domain) and nonce 0.
 */
export class ClientSeeds extends Context.Service<
  ClientSeeds,
  {
    /** The stored seed and next nonce; `None` for a player with neither. */
    current(userId: UserId): Effect.Effect<Option.Option<ClientSeedState>>
    /**
     * Sets the seed of the player's next spins. A different seed restarts the nonce at 0; the seed
     * already set changes nothing (a PUT repeated is the same PUT). Returns the state afterwards.
     */
    set(userId: UserId, clientSeed: ClientSeed): Effect.Effect<ClientSeedState>
    /**
     * The seed and nonce of the spin being made, advancing the stored nonce by one (storing
     * `fallback` with nonce 0 first when the player has no row). Runs inside the spin's `UnitOfWork`:
     * if the spin is not recorded (a second spin in the round) the advance rolls back with it, so
     * the nonce counts recorded spins only. In SQL, one statement, whose row lock also orders a
     * concurrent `set` before or after the spin, never in between.
     */
    claim(userId: UserId, fallback: ClientSeed): Effect.Effect<ClientSeedState>
  }
>()("@payments-gaming/domain/wheel/ClientSeeds") {}
