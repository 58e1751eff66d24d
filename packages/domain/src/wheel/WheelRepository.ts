import { Context, type Effect, type Option } from "effect"
import type { Wheel, WheelDefinition } from "./Model.ts"

/** The stored wheels: one active wheel and every version ever used, kept for audits. */
export class WheelRepository extends Context.Service<
  WheelRepository,
  {
    /** The wheel clients see and spins are drawn on. The database always has one (seeded by migration). */
    readonly active: Effect.Effect<Wheel>
    /** Any stored version, active or not: the wheel a past spin was drawn on. */
    byVersion(version: number): Effect.Effect<Option.Option<Wheel>>
    /**
     * Stores `definition` as the next version and makes it the active wheel, only if the active
     * wheel is still `expectedVersion` (a compare-and-set, so two replacers cannot both win).
     * Returns the active wheel afterwards: the new one, or whatever won the race.
     */
    replaceActive(expectedVersion: number, definition: WheelDefinition): Effect.Effect<Wheel>
  }
>()("@payments-gaming/domain/wheel/WheelRepository") {}
