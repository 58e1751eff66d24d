import {
  ClientSeed,
  ClientSeedState,
  Countdown,
  IdempotencyKey,
  Nonce,
  PublicSegment,
  RoundAudit,
  RoundId
} from "@payments-gaming/domain/wheel"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadRequest, Conflict, NotFound } from "../ApiErrors.ts"
import { Envelope } from "../Envelope.ts"
import { Authentication } from "../middleware/Authentication.ts"
import { PageQuery } from "../Paging.ts"

/** `data` of GET /v1/spin-and-win: spec 2.4 exactly. */
export const WheelData = Schema.Struct({
  coinBalance: Schema.Int,
  expiresIn: Countdown,
  segments: Schema.Array(PublicSegment)
})

/**
 * `data` of POST /v1/spin-and-win/spin: CONTRACT §4's three fields, then (issue 17) the client seed
 * and nonce the spin was drawn with, which a player needs to verify it once the round is revealed.
 */
export const SpinData = Schema.Struct({
  segment: PublicSegment,
  coinBalance: Schema.Int,
  expiresIn: Countdown,
  clientSeed: Schema.NullOr(ClientSeed).annotate({
    description:
      "The client seed this spin was drawn with (null only when replaying a spin made before client seeds existed)"
  }),
  nonce: Nonce.annotate({ description: "The spin's nonce: how many spins the player had made with this client seed" })
})

/** The body of PUT /v1/spin-and-win/client-seed. */
export const SetClientSeed = Schema.Struct({
  clientSeed: ClientSeed.annotate({
    description: "1 to 64 printable ASCII characters (space to ~), mixed into the draw of your next spins"
  })
})

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
          "Spin once in the current round (409 on a second spin, when the caller's own concurrent client-seed change took its nonce, or when the round closed before the spin was recorded: nothing spun, spin again; a repeated Idempotency-Key returns the first result)",
        description: "X-Spin-Id, X-Spin-Round and X-Round-Commitment identify the draw for later verification."
      })
    ),
    HttpApiEndpoint.get("clientSeed", "/client-seed", { success: Envelope(ClientSeedState) }).annotateMerge(
      OpenApi.annotations({
        summary: "The client seed and nonce the caller's next spin will be drawn with",
        description:
          "The seed the caller set, or, until they set one, a default derived from their user id (the first 32 " +
          "hex digits of SHA-256 of it). The nonce counts the caller's spins with this seed."
      })
    ),
    HttpApiEndpoint.put("setClientSeed", "/client-seed", {
      payload: SetClientSeed,
      success: Envelope(ClientSeedState),
      error: BadRequest
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Set the client seed of the caller's next spins",
        description:
          "Takes effect from the caller's next spin (in the current round if they have not spun yet); a spin " +
          "already made keeps the seed and nonce it was drawn with. A new seed restarts the nonce at 0; the seed " +
          "already set changes nothing. Set it after seeing the round's X-Round-Commitment, so the server's seed " +
          "was fixed before yours was known (docs/provably-fair.md)."
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
          "A finished round laid open: its server seed, commitment, and the caller's own spin (with its client " +
          "seed and nonce) and draw ranges " +
          "(409 while it runs and for a minute after it ends)",
        description:
          "Lists only the caller's own spins (with their user id, client seed and nonce, needed to recompute the " +
          "draw); other players' " +
          "spins are not listed, not even anonymously. A caller whose token has the admin role sees every " +
          "player's spins with user ids, paged. See docs/provably-fair.md."
      })
    )
  )
  .middleware(Authentication)
  .prefix("/v1/spin-and-win")
  .annotateMerge(
    OpenApi.annotations({
      title: "Spin and win",
      description: "The daily wheel: one spin per player per round, provably fair (docs/provably-fair.md)"
    })
  ) {}
