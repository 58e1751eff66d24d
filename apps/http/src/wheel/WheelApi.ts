import { Countdown, IdempotencyKey, PublicSegment, RoundAudit, RoundId } from "@payments-gaming/domain/wheel"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Conflict, NotFound } from "../ApiErrors.ts"
import { Envelope } from "../Envelope.ts"
import { Authentication } from "../middleware/Authentication.ts"
import { PageQuery } from "../Paging.ts"

/** `data` of GET /v1/spin-and-win: spec 2.4 exactly. */
export const WheelData = Schema.Struct({
  coinBalance: Schema.Int,
  expiresIn: Countdown,
  segments: Schema.Array(PublicSegment)
})

/** `data` of POST /v1/spin-and-win/spin: CONTRACT §4 exactly. */
export const SpinData = Schema.Struct({ segment: PublicSegment, coinBalance: Schema.Int, expiresIn: Countdown })

export class WheelApi extends HttpApiGroup.make("wheel")
  .add(
    HttpApiEndpoint.get("view", "/", { success: Envelope(WheelData) }).annotateMerge(
      OpenApi.annotations({
        summary: "The wheel's eight segments and the caller's coin balance",
        description:
          "X-Spin-Round names the current round (a calendar day in WHEEL_TIMEZONE) and X-Round-Commitment is " +
          "the SHA-256 of its server seed, revealed once the round is over (see docs/provably-fair.md)."
      })
    ),
    HttpApiEndpoint.post("spin", "/spin", {
      headers: { "idempotency-key": Schema.optional(IdempotencyKey) },
      success: Envelope(SpinData),
      error: Conflict
    }).annotateMerge(
      OpenApi.annotations({
        summary:
          "Spin once in the current round (409 on a second spin; a repeated Idempotency-Key returns the first result)",
        description: "X-Spin-Id, X-Spin-Round and X-Round-Commitment identify the draw for later verification."
      })
    ),
    HttpApiEndpoint.get("round", "/rounds/:round", {
      params: { round: RoundId },
      query: PageQuery,
      success: Envelope(RoundAudit),
      error: [NotFound, Conflict]
    }).annotateMerge(
      OpenApi.annotations({
        summary:
          "A finished round laid open: its server seed, commitment, and the caller's own spin with its draw ranges " +
          "(409 while it runs)",
        description:
          "Lists only the caller's own spins (with their user id, needed to recompute the draw); other players' " +
          "spins are not listed, not even anonymously. A caller whose token has the admin role sees every " +
          "player's spins with user ids, paged. See docs/provably-fair.md."
      })
    )
  )
  .middleware(Authentication)
  .prefix("/v1/spin-and-win")
  .annotateMerge(OpenApi.annotations({ title: "Spin and win" })) {}
