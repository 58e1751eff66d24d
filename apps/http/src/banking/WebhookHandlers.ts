import { Api } from "@payments-gaming/api/Api"
import { badRequest, unauthorized } from "@payments-gaming/api/ApiErrors"
import { BankingService, WebhookVerifier } from "@payments-gaming/domain/banking"
import { Clock, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

const SIGNATURE_HEADER = "x-provider-signature"

export const WebhookHandlers = HttpApiBuilder.group(Api, "webhook", (handlers) =>
  Effect.gen(function* () {
    const verifier = yield* WebhookVerifier
    const banking = yield* BankingService
    return handlers.handleRaw(
      "coreBanking",
      Effect.fnUntraced(function* ({ request }) {
        const receivedAt = new Date(yield* Clock.currentTimeMillis)
        // The exact bytes, before any parsing. A body over 256 KiB fails here with a respondable
        // error that the response middleware turns into the 413 envelope.
        const rawBody = new Uint8Array(yield* Effect.orDie(request.arrayBuffer))
        const signature = request.headers[SIGNATURE_HEADER]
        yield* verifier.verify(rawBody, signature).pipe(Effect.mapError(() => unauthorized("Invalid signature")))
        const result = yield* banking
          .receive({ rawBody, signature: signature ?? "", receivedAt })
          .pipe(Effect.mapError((error) => badRequest("Invalid webhook payload", error.issues)))
        yield* Effect.logInfo("Webhook event", {
          eventId: result.eventId,
          kind: result.kind,
          outcome: result.outcome,
          reason: result.reason
        })
        return { status: 200, message: "Webhook processed successfully", data: "OK" as const }
      })
    )
  })
)
