import { CreditPayload, IgnoredPayload, TransferPayload } from "@payments-gaming/domain/banking"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadRequest, Unauthorized } from "../ApiErrors.ts"
import { ReducedEnvelope } from "../Envelope.ts"
import { documentWebhook } from "../OpenApiResponses.ts"
import { Header, WEBHOOK_PATH, WEBHOOK_SPACE } from "../Paths.ts"
import { EnvelopeStyle, ReadsRawBody, Space } from "../RoutePolicy.ts"

export class WebhookApi extends HttpApiGroup.make("webhook")
  .add(
    HttpApiEndpoint.post("coreBanking", WEBHOOK_PATH, {
      // Documents the body; the handler reads the raw bytes itself, because the signature is
      // checked over the exact bytes before anything is parsed.
      payload: Schema.Union([CreditPayload, TransferPayload, IgnoredPayload]),
      success: ReducedEnvelope(Schema.Literal("OK")),
      error: [Unauthorized, BadRequest]
    })
      // The body guard leaves these bytes alone: the signature is checked over them first, and the
      // banking reader then refuses (and dead-letters) invalid UTF-8 and NULs itself.
      .annotate(ReadsRawBody, true)
      .annotateMerge(
        OpenApi.annotations({
          summary: "Core-banking provider notifications (virtual-account credits, transfer outcomes)",
          description:
            `${Header.providerSignature}: hex HMAC-SHA256 of the raw body with one of WEBHOOK_SECRETS. Idempotent on ` +
            "(event kind, data.reference); every accepted event is stored with its outcome. Answers use the " +
            "reduced envelope { status, message, data }.",
          transform: documentWebhook
        })
      )
  )
  // Its answers, and any under /v1/webhook/ (an unknown path, a parser error), use the reduced envelope.
  .annotate(EnvelopeStyle, "reduced")
  .annotate(Space, WEBHOOK_SPACE)
  .annotateMerge(
    OpenApi.annotations({
      title: "Core-banking webhook",
      description: "Signed notifications from the core-banking provider: credits and transfer outcomes"
    })
  ) {}
