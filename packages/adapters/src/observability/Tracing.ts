import { Config, Effect, Layer, Option, References, Schema } from "effect"

/**
 * Where traces go: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it is, else `OTEL_EXPORTER_OTLP_ENDPOINT`
 * with `/v1/traces` appended (OpenTelemetry's environment specification). Off, whatever is set, with
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
 */
export const endpointConfig: Config.Config<Option.Option<string>> = Config.all({
  traces: Config.option(Config.String("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")),
  base: Config.option(Config.String("OTEL_EXPORTER_OTLP_ENDPOINT")),
  disabled: Config.Boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false)),
  exporter: Config.String("OTEL_TRACES_EXPORTER").pipe(Config.withDefault("otlp"))
}).pipe(
  Config.map(({ traces, base, disabled, exporter }) => {
    if (disabled || exporter.trim().toLowerCase() === "none") return Option.none()
    const blank = (value: Option.Option<string>) => Option.filter(value, (text) => text.trim() !== "")
    return Option.orElse(blank(traces), () => Option.map(blank(base), (url) => `${url.replace(/\/+$/, "")}/v1/traces`))
  })
)

const Headers = Schema.Record(Schema.String, Schema.String)

/** `OTEL_EXPORTER_OTLP_HEADERS`: `key=value` pairs separated by commas, values URL-encoded. */
const headersConfig = Config.String("OTEL_EXPORTER_OTLP_HEADERS").pipe(
  Config.map((text) => {
    const headers: Record<string, string> = {}
    for (const pair of text.split(",")) {
      const at = pair.indexOf("=")
      if (at > 0) headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim())
    }
    return Schema.decodeUnknownSync(Headers)(headers)
  }),
  Config.withDefault({})
)

/**
 * Traces over OTLP/HTTP (JSON) to `endpointConfig`, with Effect's own exporter: a span per request
 * (the HTTP server's, continuing an incoming `traceparent`), per SQL statement and transaction
 * (effect/sql's), per use-case and port call made with `Effect.fn` (the push provider's send among
 * them). Batched every `OTEL_BSP_SCHEDULE_DELAY` milliseconds (default 5000) and flushed when the
 * service stops. Unset, tracing stays off: spans are not even built (issue 16 measured what building
 * them cost each request), and the exporter's modules are not even loaded (OtlpExport.ts).
 */
export const layerConfig = Layer.unwrap(
  Effect.gen(function* () {
    const endpoint = yield* endpointConfig
    if (Option.isNone(endpoint)) return Layer.succeed(References.TracerEnabled, false)
    const serviceName = yield* Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("payments-gaming"))
    const delay = yield* Config.option(Config.Int("OTEL_BSP_SCHEDULE_DELAY"))
    const headers = yield* headersConfig
    const OtlpExport = yield* Effect.promise(() => import("./OtlpExport.ts"))
    return OtlpExport.layer({
      url: endpoint.value,
      serviceName,
      headers,
      exportIntervalMillis: Option.getOrUndefined(delay)
    })
  })
)
