import { Api } from "@payments-gaming/api/Api"
import { badRequest, conflict, notFound } from "@payments-gaming/api/ApiErrors"
import { CurrentUser } from "@payments-gaming/api/middleware/CurrentUser"
import { pageOf } from "@payments-gaming/api/Paging"
import { CardsService } from "@payments-gaming/domain/cards"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ok } from "../Respond.ts"

const conflictError = (error: { readonly message: string }) => Effect.fail(conflict(error.message))

export const CardsHandlers = HttpApiBuilder.group(Api, "cards", (handlers) =>
  Effect.gen(function* () {
    const cards = yield* CardsService
    return handlers
      .handle(
        "add",
        Effect.fnUntraced(function* ({ payload }) {
          const user = yield* CurrentUser
          const card = yield* cards.add(user.userId, payload).pipe(
            Effect.catchTags({
              CardValidationError: (error) => Effect.fail(badRequest("Invalid card", error.issues)),
              DuplicateCard: conflictError,
              CardLimitReached: conflictError
            })
          )
          return yield* ok("Card added successfully", card)
        })
      )
      .handle(
        "list",
        Effect.fnUntraced(function* ({ query }) {
          const user = yield* CurrentUser
          return yield* ok("Cards fetched", yield* cards.list(user.userId, pageOf(query)))
        })
      )
      .handle(
        "remove",
        Effect.fnUntraced(function* ({ params }) {
          const user = yield* CurrentUser
          yield* cards
            .remove(user.userId, params.cardId)
            .pipe(Effect.catchTag("CardNotFound", (error) => Effect.fail(notFound(error.message))))
          return yield* ok("Card deleted", null)
        })
      )
  })
)
