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
 * The player's spin was drawn again and again and each time found its nonce taken by their own
 * concurrent spins or client-seed changes (SpinAndWinService's MAX_SPIN_ATTEMPTS). Nothing was
 * recorded or credited; trying again once those changes have landed succeeds or meets AlreadySpun.
 */
export class SpinContended extends Schema.TaggedError<SpinContended>()("SpinContended", {
  round: RoundId
}) {
  override get message(): string {
    return "Your spin raced other changes to your client seed; nothing was spun, try again"
  }
}

/** The round is still running (or has not started), so its seed stays secret. */
export class RoundNotFinished extends Schema.TaggedError<RoundNotFinished>()("RoundNotFinished", {
  round: RoundId
}) {
  override get message(): string {
    return `Round ${this.round} has not finished; its seed is revealed once it ends`
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
