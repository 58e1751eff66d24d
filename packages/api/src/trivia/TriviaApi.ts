import { Challenge, ChallengeIdFromString, ChallengeInput } from "@payments-gaming/domain/trivia"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Conflict, NotFound } from "../ApiErrors.ts"
import { Envelope } from "../Envelope.ts"
import { Authentication } from "../middleware/Authentication.ts"
import { RequireAdmin } from "../middleware/RequireAdmin.ts"
import { PageQuery } from "../Paging.ts"
import { TRIVIA_CHALLENGES_PATH, TRIVIA_SPACE } from "../Paths.ts"
import { EnvelopeStyle, Space } from "../RoutePolicy.ts"

const params = { challengeId: ChallengeIdFromString }

export class TriviaApi extends HttpApiGroup.make("trivia")
  .add(
    HttpApiEndpoint.put("update", "/:challengeId", {
      params,
      payload: ChallengeInput,
      success: Envelope(Schema.String),
      error: [NotFound, Conflict]
    })
      .middleware(RequireAdmin)
      .annotateMerge(
        OpenApi.annotations({
          summary: "Replace a challenge (admin); 409 once it has ended",
          description:
            "Full replacement under the same rules as a creation. 404 unknown id; 409 when the challenge has ended " +
            "(at or after its endTime) or concurrent updates kept winning over five attempts."
        })
      ),
    HttpApiEndpoint.post("create", "/", {
      payload: ChallengeInput,
      success: Envelope(Challenge).pipe(HttpApiSchema.status(201))
    })
      .middleware(RequireAdmin)
      .annotateMerge(
        OpenApi.annotations({
          summary: "Create a challenge (admin)",
          description:
            "201 with the stored challenge and its integer id. title trimmed 1 to 200 characters; prizeAmount a number " +
            "≥ 0 with at most two decimals; startTime and endTime UTC instants ending in Z, endTime after startTime."
        })
      ),
    HttpApiEndpoint.get("get", "/:challengeId", {
      params,
      success: Envelope(Challenge),
      error: NotFound
    }).annotateMerge(
      OpenApi.annotations({ summary: "One challenge", description: "404 when no challenge has this id." })
    ),
    HttpApiEndpoint.get("list", "/", { query: PageQuery, success: Envelope(Schema.Array(Challenge)) }).annotateMerge(
      OpenApi.annotations({
        summary: "Challenges ordered by start time (paged with limit and offset)",
        description: "`limit` 1 to 200 (default 50), `offset` from 0 (default 0)."
      })
    )
  )
  .middleware(Authentication)
  .prefix(TRIVIA_CHALLENGES_PATH)
  // CONTRACT §2: every response under /v1/gaming/trivia/, errors and unknown paths included, is local.
  .annotate(EnvelopeStyle, "local")
  .annotate(Space, TRIVIA_SPACE)
  .annotateMerge(
    OpenApi.annotations({
      title: "Trivia",
      description: "Trivia challenges. Every response here, errors included, is stamped with a local date-time."
    })
  ) {}
