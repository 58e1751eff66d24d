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
      .annotateMerge(OpenApi.annotations({ summary: "Replace a challenge (admin); 409 once it has ended" })),
    HttpApiEndpoint.post("create", "/", {
      payload: ChallengeInput,
      success: Envelope(Challenge).pipe(HttpApiSchema.status(201))
    })
      .middleware(RequireAdmin)
      .annotateMerge(OpenApi.annotations({ summary: "Create a challenge (admin)" })),
    HttpApiEndpoint.get("get", "/:challengeId", { params, success: Envelope(Challenge), error: NotFound }),
    HttpApiEndpoint.get("list", "/", { query: PageQuery, success: Envelope(Schema.Array(Challenge)) }).annotateMerge(
      OpenApi.annotations({ summary: "Challenges ordered by start time (paged with limit and offset)" })
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
