import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ServiceUnavailable } from "../ApiErrors.ts"
import { Envelope } from "../Envelope.ts"
import { RateLimited } from "../RoutePolicy.ts"

export class SystemApi extends HttpApiGroup.make("system")
  .add(
    HttpApiEndpoint.get("healthz", "/healthz", {
      success: Envelope(Schema.Struct({ status: Schema.Literal("ok") }))
    }),
    HttpApiEndpoint.get("readyz", "/readyz", {
      success: Envelope(Schema.Struct({ database: Schema.Literal("ok") })),
      error: ServiceUnavailable
    })
  )
  // Probes keep answering while a client is throttled.
  .annotate(RateLimited, "operational")
  .annotateMerge(
    OpenApi.annotations({ title: "System", description: "Liveness and readiness probes (no authentication)" })
  ) {}
