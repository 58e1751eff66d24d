import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ServiceUnavailable } from "../ApiErrors.ts"
import { Envelope } from "../Envelope.ts"
import { RateLimited } from "../RoutePolicy.ts"

export class SystemApi extends HttpApiGroup.make("system")
  .add(
    HttpApiEndpoint.get("healthz", "/healthz", {
      success: Envelope(Schema.Struct({ status: Schema.Literal("ok") }))
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Liveness: the process answers",
        description: "Always 200 while the process serves requests; checks nothing else (not the database)."
      })
    ),
    HttpApiEndpoint.get("readyz", "/readyz", {
      success: Envelope(Schema.Struct({ database: Schema.Literal("ok") })),
      error: ServiceUnavailable
    }).annotateMerge(
      OpenApi.annotations({
        summary: "Readiness: the database answers",
        description: "200 when a query on the database succeeds, 503 (without Retry-After) while it is unreachable."
      })
    )
  )
  // Probes keep answering while a client is throttled.
  .annotate(RateLimited, "operational")
  .annotateMerge(
    OpenApi.annotations({ title: "System", description: "Liveness and readiness probes (no authentication)" })
  ) {}
