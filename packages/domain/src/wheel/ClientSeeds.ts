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
    // A spin takes its nonce when it is recorded: `SpinRepository.spun`.
  }
>()("@payments-gaming/domain/wheel/ClientSeeds") {}
