import { Api } from "@payments-gaming/api/Api"
import { conflict, notFound } from "@payments-gaming/api/ApiErrors"
import { pageOf } from "@payments-gaming/api/Paging"
import { TriviaService } from "@payments-gaming/domain/trivia"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { okLocal } from "../Respond.ts"

const notFoundError = (error: { readonly message: string }) => Effect.fail(notFound(error.message))
const conflictError = (error: { readonly message: string }) => Effect.fail(conflict(error.message))

export const TriviaHandlers = HttpApiBuilder.group(Api, "trivia", (handlers) =>
  Effect.gen(function* () {
    const trivia = yield* TriviaService
    return handlers
      .handle("update", ({ params, payload }) =>
        trivia.update(params.challengeId, payload).pipe(
          Effect.catchTags({
            ChallengeNotFound: notFoundError,
            ChallengeEnded: conflictError,
            ConcurrentUpdate: conflictError
          }),
          Effect.andThen(() =>
            okLocal("Challenge updated successfully", `Challenge with id ${params.challengeId} updated successfully`)
          )
        )
      )
      .handle("create", ({ payload }) =>
        trivia.create(payload).pipe(Effect.flatMap((challenge) => okLocal("Challenge created", challenge, 201)))
      )
      .handle("get", ({ params }) =>
        trivia.get(params.challengeId).pipe(
          Effect.catchTag("ChallengeNotFound", notFoundError),
          Effect.flatMap((challenge) => okLocal("Challenge fetched", challenge))
        )
      )
      .handle("list", ({ query }) =>
        trivia.list(pageOf(query)).pipe(Effect.flatMap((challenges) => okLocal("Challenges fetched", challenges)))
      )
  })
)
