import { Schema } from "effect"
import { UserId } from "../auth/Model.ts"
import { Currency } from "../money/index.ts"
import { ClientSeed } from "./ClientSeed.ts"
import { Prize, PublicSegment, SegmentId } from "./Model.ts"
import { RoundId } from "./Round.ts"
import { Commitment, Nonce, SpinId } from "./Spin.ts"

/** `HH:MM:SS` left in the current round (hours may reach 24, or 25 on a day the clocks go back). */
export const Countdown = Schema.String.check(Schema.isPattern(/^\d{2,}:[0-5]\d:[0-5]\d$/))

/**
 * What `GET /v1/spin-and-win` shows. The first three fields are spec 2.4 exactly, in its order;
 * `round` and `commitment` let a player check the round's draws later (see docs/provably-fair.md).
 *
 * A plain struct, not a `Schema.Class`: the service builds it from its own trusted values on every
 * request, and a class constructor would walk and check all of it (eight segments) only for the
 * HTTP handler to encode and check it again (issue 16). The schema still describes the value.
 */
export const WheelView = Schema.Struct({
  coinBalance: Schema.Int,
  expiresIn: Countdown,
  segments: Schema.Array(PublicSegment),
  round: RoundId,
  commitment: Commitment
})
export type WheelView = typeof WheelView.Type

/**
 * The result of a spin: `segment`, `coinBalance` (after the prize), `expiresIn` as CONTRACT §4,
 * then what identifies and audits the draw. `replayed` is true when an `Idempotency-Key` was seen
 * before and this is the first spin's result again. A plain struct for the reason `WheelView` is.
 */
export const SpinOutcome = Schema.Struct({
  segment: PublicSegment,
  coinBalance: Schema.Int,
  expiresIn: Countdown,
  spinId: SpinId,
  round: RoundId,
  clientSeed: Schema.NullOr(ClientSeed),
  nonce: Nonce,
  drawValue: Schema.Int,
  wheelVersion: Schema.Int,
  commitment: Commitment,
  replayed: Schema.Boolean
})
export type SpinOutcome = typeof SpinOutcome.Type

/**
 * What `GET` and `PUT /v1/spin-and-win/client-seed` answer: the client seed the player's next spin
 * will be drawn with, and that spin's nonce.
 */
export const ClientSeedState = Schema.Struct({ clientSeed: ClientSeed, nonce: Nonce })
export type ClientSeedState = typeof ClientSeedState.Type

/** The draw ranges of one wheel version: `[from, to)` per segment, in display order. */
export const WheelRanges = Schema.Struct({
  version: Schema.Int,
  currency: Currency,
  totalWeight: Schema.Int,
  ranges: Schema.Array(Schema.Struct({ segmentId: SegmentId, from: Schema.Int, to: Schema.Int }))
})
export type WheelRanges = typeof WheelRanges.Type

/** One spin of a finished round, with everything needed to recompute it. */
export const SpinAudit = Schema.Struct({
  spinId: SpinId,
  userId: UserId,
  clientSeed: Schema.NullOr(ClientSeed).annotate({
    description:
      "The client seed the spin was drawn with; null for a spin made before client seeds existed, drawn " +
      "from the message userId:round:nonce instead"
  }),
  nonce: Nonce,
  wheelVersion: Schema.Int,
  drawValue: Schema.Int,
  segmentId: SegmentId,
  prize: Prize,
  createdAt: Schema.DateTimeUtc
})
export type SpinAudit = typeof SpinAudit.Type

/**
 * A finished round laid open: its seed (hex), the commitment published while it ran, a page of the
 * spins the caller may see (their own; every player's for an admin, see `RoundViewer.ts`) and the
 * wheels those spins were drawn on (as draw ranges, which reveal the weights, needed to map a draw
 * to a segment).
 */
export class RoundAudit extends Schema.Class<RoundAudit>("RoundAudit")({
  round: RoundId,
  seed: Schema.String.annotate({ description: "The round's server seed, hex; SHA-256 of it is the commitment" }),
  commitment: Commitment,
  startedAt: Schema.DateTimeUtc,
  endedAt: Schema.DateTimeUtc,
  wheels: Schema.Array(WheelRanges).annotate({
    description: "Draw ranges of the wheel versions the listed spins were drawn on (none when no spin is listed)"
  }),
  spins: Schema.Array(SpinAudit).annotate({
    description:
      "The caller's own spins in the round (at most one); every player's, with user ids, for a caller with " +
      "the admin role. Other players' spins are never listed to anyone else, not even anonymously."
  })
}) {}
