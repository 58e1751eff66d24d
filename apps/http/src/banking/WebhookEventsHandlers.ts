import { Api } from "@payments-gaming/api/Api"
import { notFound } from "@payments-gaming/api/ApiErrors"
import { BankingService, WebhookEventsService } from "@payments-gaming/domain/banking"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ok } from "../Respond.ts"

const DEFAULT_LIMIT = 50

const notFoundError = (error: { readonly message: string }) => Effect.fail(notFound(error.message))

export const WebhookEventsHandlers = HttpApiBuilder.group(Api, "webhookEvents", (handlers) =>
  Effect.gen(function* () {
    const events = yield* WebhookEventsService
    const banking = yield* BankingService
    return handlers
      .handle("list", ({ query }) =>
        events
          .list({
            outcome: query.status,
            kind: query.kind,
            reference: query.reference,
            after: query.cursor,
            limit: query.limit ?? DEFAULT_LIMIT
          })
          .pipe(Effect.flatMap((page) => ok("Webhook events fetched", page)))
      )
      .handle("detail", ({ params }) =>
        events.detail(params.id).pipe(
          Effect.catchTag("WebhookEventNotFound", notFoundError),
          Effect.flatMap((event) => ok("Webhook event fetched", event))
        )
      )
      .handle("replay", ({ params }) =>
        banking.replay(params.id).pipe(
          Effect.catchTag("WebhookEventNotFound", notFoundError),
          Effect.flatMap((result) =>
            ok(result.replayed ? "Webhook event replayed" : "Webhook event not replayable", result)
          )
        )
      )
      .handle("replayByOutcome", ({ payload }) =>
        banking
          .replayByStatus(payload.outcome)
          .pipe(Effect.flatMap((results) => ok(`Replayed ${payload.outcome} webhook events`, results)))
      )
      .handle("deadLetters", ({ query }) =>
        events
          .deadLetters({ after: query.cursor, limit: query.limit ?? DEFAULT_LIMIT })
          .pipe(Effect.flatMap((page) => ok("Dead letters fetched", page)))
      )
  })
)
