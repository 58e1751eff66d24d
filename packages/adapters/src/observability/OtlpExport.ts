import { Duration, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"

export interface OtlpExportOptions {
  readonly url: string
  readonly serviceName: string
  readonly headers: Readonly<Record<string, string>>
  readonly exportIntervalMillis: number | undefined
}

/**
 * Effect's OTLP tracer, exporting JSON over HTTP with fetch. A module of its own, loaded by
 * Tracing.ts only when traces are exported, so a service without them never loads the exporter.
 */
export const layer = (options: OtlpExportOptions) =>
  OtlpTracer.layer({
    url: options.url,
    resource: { serviceName: options.serviceName },
    headers: options.headers,
    ...(options.exportIntervalMillis === undefined
      ? {}
      : { exportInterval: Duration.millis(options.exportIntervalMillis) })
  }).pipe(Layer.provide([OtlpSerialization.layerJson, FetchHttpClient.layer]))
