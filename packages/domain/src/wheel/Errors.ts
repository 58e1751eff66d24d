import { Schema } from "effect"
import { RoundId } from "./Round.ts"

/** The user has already spun in this round (one spin per user per round). Nothing was credited. */
export class AlreadySpun extends Schema.TaggedError<AlreadySpun>()("AlreadySpun", {
  round: RoundId
}) {
  override get message(): string {
    return `Already spun in round ${this.round}; come back when the next round starts`
  }
}

/**
 * The player's spin found its client seed or nonce taken by their own concurrent client-seed change
 * (a spin is drawn once, with the seed read once: never again with a seed read later). Nothing was
 * recorded or credited; trying again draws with the new seed.
 */
export class SpinContended extends Schema.TaggedError<SpinContended>()("SpinContended", {
  round: RoundId
}) {
  override get message(): string {
    return "Your spin raced other changes to your client seed; nothing was spun, try again"
  }
}

/**
 * The spin's round ended before its one write reached the store (a spin started just before
 * midnight): by the store's own clock the round was closed, so nothing was recorded or credited. A
 * spin now is a spin in the new round.
 */
export class RoundClosed extends Schema.TaggedError<RoundClosed>()("RoundClosed", {
  round: RoundId
}) {
  override get message(): string {
    return "round closed, spin again"
  }
}

/** The round is still running (or has not started), so its seed stays secret. */
export class RoundNotFinished extends Schema.TaggedError<RoundNotFinished>()("RoundNotFinished", {
  round: RoundId
}) {
  override get message(): string {
    return `Round ${this.round} has not finished; its seed is revealed a minute after it ends`
  }
}

/** A past round in which nobody saw or spun the wheel, so it never had a seed. */
export class RoundNotFound extends Schema.TaggedError<RoundNotFound>()("RoundNotFound", {
  round: RoundId
}) {
  override get message(): string {
    return `Round ${this.round} had no spins`
  }
}
