import * as InternalKeyAdapter from "@payments-gaming/adapters/auth/InternalKey"
import * as JwtVerifier from "@payments-gaming/adapters/auth/JwtVerifier"
import * as DevSecrets from "@payments-gaming/adapters/config/DevSecrets"
import * as Logging from "@payments-gaming/adapters/observability/Logging"
import * as Tracing from "@payments-gaming/adapters/observability/Tracing"
import * as Database from "@payments-gaming/adapters/postgres/Database"
import * as DatabaseHealth from "@payments-gaming/adapters/postgres/DatabaseHealth"
import * as WebhookSignature from "@payments-gaming/adapters/signature/WebhookSignature"
import { Layer } from "effect"
import * as Layers from "./Layers.ts"

/**
 * What the HTTP app is served with, on whatever database and configuration it is given: the
 * callers' authentication (JWT, internal key, webhook signatures from WEBHOOK_SECRETS), the
 * database's health, the use cases without their ports (`Layers.ServedUseCases`), and traces when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set.
 *
 * Tracing is off otherwise: the service exports no spans, yet with tracing on every request built
 * spans nobody read (the server's span of the request, one per SQL statement with its text, one per
 * transaction) and changed the request's context for each. Off, they are no-ops: 7 % more GETs per
 * second at 7 % less CPU each (issue 16).
 */
export const Ports = Layer.mergeAll(
  JwtVerifier.layerConfig,
  InternalKeyAdapter.layerConfig,
  WebhookSignature.layerConfig,
  DatabaseHealth.layer,
  Layers.ServedUseCases
).pipe(Layer.provideMerge(Tracing.layerConfig))

/**
 * The process the service runs in: the configured database, migrated (DATABASE_URL, or the embedded
 * one under DATA_DIR), the configuration (environment, then the development secrets) and logging.
 * Secrets are resolved (and announced) with the service's logger, so production start-up logs stay JSON.
 */
export const Platform = Database.layerConfig.pipe(
  Layer.provideMerge(DevSecrets.layer.pipe(Layer.provideMerge(Logging.layerConfig())))
)
