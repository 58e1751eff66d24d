import { Schema } from "effect"
import { ChallengeId } from "./Model.ts"

/** No challenge has this id. */
export class ChallengeNotFound extends Schema.TaggedError<ChallengeNotFound>()("ChallengeNotFound", {
  challengeId: ChallengeId
}) {
  override get message(): string {
    return `Challenge with id ${this.challengeId} not found`
  }
}

/** The stored challenge has reached its end time, so it can no longer be changed. */
export class ChallengeEnded extends Schema.TaggedError<ChallengeEnded>()("ChallengeEnded", {
  challengeId: ChallengeId,
  endTime: Schema.DateTimeUtc
}) {
  override get message(): string {
    return `Challenge with id ${this.challengeId} has already ended`
  }
}

/**
 * The challenge changed between the moment it was read and the moment it was written: its
 * version is no longer `expectedVersion`. Nothing was written.
 */
export class ConcurrentUpdate extends Schema.TaggedError<ConcurrentUpdate>()("ConcurrentUpdate", {
  challengeId: ChallengeId,
  expectedVersion: Schema.Int
}) {
  override get message(): string {
    return `Challenge with id ${this.challengeId} was changed by someone else; read it again and retry`
  }
}

/** Why a prize allocation was refused; see `PrizeAllocation.allocate`. */
export const AllocationProblem = Schema.Literals([
  "InvalidScale",
  "InvalidPool",
  "PoolNotRepresentable",
  "NoWinners",
  "InvalidWinnerCount",
  "TooManyWinners",
  "InvalidScore"
])
export type AllocationProblem = typeof AllocationProblem.Type

/** A prize allocation asked with input it cannot honour exactly. */
export class InvalidAllocation extends Schema.TaggedError<InvalidAllocation>()("InvalidAllocation", {
  problem: AllocationProblem,
  detail: Schema.String
}) {
  override get message(): string {
    return `${this.problem}: ${this.detail}`
  }
}
