import { NodeHttpServer } from "@effect/platform-node"
import * as InternalKeyAdapter from "@payments-gaming/adapters/auth/InternalKey"
import * as JwtVerifier from "@payments-gaming/adapters/auth/JwtVerifier"
import * as CreditCardTypeBrandDetector from "@payments-gaming/adapters/cards/CreditCardTypeBrandDetector"
import * as HmacCardFingerprinter from "@payments-gaming/adapters/cards/HmacCardFingerprinter"
import * as DevSecrets from "@payments-gaming/adapters/config/DevSecrets"
import * as Logging from "@payments-gaming/adapters/observability/Logging"
import * as BankingPostgres from "@payments-gaming/adapters/postgres/BankingPostgres"
import * as CardRepositoryPg from "@payments-gaming/adapters/postgres/CardRepository"
import * as ChallengeRepositoryPg from "@payments-gaming/adapters/postgres/ChallengeRepository"
import * as Database from "@payments-gaming/adapters/postgres/Database"
import * as DatabaseHealth from "@payments-gaming/adapters/postgres/DatabaseHealth"
import * as PushDeliveryRepository from "@payments-gaming/adapters/postgres/PushDeliveryRepository"
import * as PushGatewaysLive from "@payments-gaming/adapters/push/PushGatewaysLive"
import * as WebhookSignature from "@payments-gaming/adapters/signature/WebhookSignature"
import * as SpinAndWinLive from "@payments-gaming/adapters/wheel/SpinAndWinLive"
import * as WheelSettingsConfig from "@payments-gaming/adapters/wheel/WheelSettingsConfig"
import { CardsService } from "@payments-gaming/domain/cards"
import { PushService } from "@payments-gaming/domain/push"
import { TriviaService } from "@payments-gaming/domain/trivia"
import { Config, ConfigProvider, Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { PrometheusMetrics } from "effect/observability"
import { Api } from "./Api.ts"
import { BankingAdminHandlers, WalletHandlers } from "./banking/WalletHandlers.ts"
import { WebhookEventsHandlers } from "./banking/WebhookEventsHandlers.ts"
import { WebhookHandlers } from "./banking/WebhookHandlers.ts"
import { CardsHandlers } from "./cards/CardsHandlers.ts"
import * as Authentication from "./middleware/Authentication.ts"
import * as BodyGuard from "./middleware/BodyGuard.ts"
import * as InternalKey from "./middleware/InternalKey.ts"
import * as RateLimit from "./middleware/RateLimit.ts"
import * as RequireAdmin from "./middleware/RequireAdmin.ts"
import * as ResponseMiddleware from "./middleware/ResponseMiddleware.ts"
import { makeRouteLabels } from "./middleware/RouteLabels.ts"
import * as SchemaErrors from "./middleware/SchemaErrors.ts"
import { createServer } from "./NodeServer.ts"
import { PushHandlers } from "./push/PushHandlers.ts"
import * as Ready from "./Ready.ts"
import * as ResponseTime from "./ResponseTime.ts"
import { SystemHandlers } from "./system/SystemHandlers.ts"
import { TriviaHandlers } from "./trivia/TriviaHandlers.ts"
import { WheelHandlers } from "./wheel/WheelHandlers.ts"

const ApiRoutes = HttpApiBuilder.layer(Api, { openapiPath: "/openapi.json" }).pipe(
  Layer.provide([
    SystemHandlers,
    PushHandlers,
    TriviaHandlers,
    WebhookHandlers,
    WalletHandlers,
    BankingAdminHandlers,
    WebhookEventsHandlers,
    WheelHandlers,
    CardsHandlers
  ]),
  Layer.provide([SchemaErrors.layer, BodyGuard.layer, Authentication.layer, RequireAdmin.layer, InternalKey.layer])
)

const routeLabel = makeRouteLabels(Api, [
  ["GET", "/docs"],
  ["GET", "/metrics"],
  ["GET", "/openapi.json"]
])

/** Every route of the service: the API, its reference at /docs, Prometheus at /metrics. */
export const Routes = Layer.mergeAll(
  ApiRoutes,
  HttpApiScalar.layer(Api, { path: "/docs" }),
  PrometheusMetrics.layerHttp({ path: "/metrics" }),
  ResponseMiddleware.layer(routeLabel)
).pipe(Layer.provide(Layer.succeed(HttpServerRequest.MaxBodySize, BodyGuard.MAX_BODY)))

/** The push use case on the configured gateways (or the development sink), recording every attempt. */
export const PushLive = PushService.layer.pipe(
  Layer.provide(Layer.merge(PushGatewaysLive.layerConfig, PushDeliveryRepository.layer))
)

export const TriviaLive = TriviaService.layer.pipe(Layer.provide(ChallengeRepositoryPg.layer))

/** Webhook intake, wallets and transfers on the PostgreSQL ledger; signatures from WEBHOOK_SECRETS. */
export const BankingLive = Layer.mergeAll(BankingPostgres.layer, WebhookSignature.layerConfig)

/** The wheel on PostgreSQL, paying prizes through the same ledger and transaction as the banking side. */
export const WheelLive = SpinAndWinLive.layer.pipe(
  Layer.provide(WheelSettingsConfig.layerConfig),
  Layer.provide(BankingPostgres.layerLedger)
)

/** Card registration: brand detection from credit-card-type, fingerprints keyed by CARD_FINGERPRINT_KEY. */
export const CardsLive = CardsService.layer.pipe(
  Layer.provide([CardRepositoryPg.layer, CreditCardTypeBrandDetector.layer, HmacCardFingerprinter.layerConfig])
)

/** The adapters behind the ports, from configuration. */
export const Adapters = Layer.mergeAll(
  JwtVerifier.layerConfig,
  InternalKeyAdapter.layerConfig,
  ResponseTime.layerConfig,
  RateLimit.layerConfig,
  DatabaseHealth.layer,
  PushLive,
  TriviaLive,
  BankingLive,
  WheelLive,
  CardsLive
)

const listen = Layer.unwrap(
  Effect.gen(function* () {
    // 0 is allowed: the kernel picks a free port, which the listen log line reports.
    const port = yield* Config.Int("PORT").pipe(
      Config.mapEffect((port) =>
        port >= 0 && port <= 65535
          ? Effect.succeed(port)
          : Effect.fail(new Config.ConfigError(new ConfigProvider.SourceError({ message: "PORT must be 0 to 65535" })))
      ),
      Config.withDefault(8080)
    )
    const host = yield* Config.String("HOST").pipe(Config.withDefault("127.0.0.1"))
    // Node's own parser errors are answered outside Effect; they need the trivia routes' local time.
    const formatLocal = ResponseTime.makeLocalFormatter(yield* ResponseTime.timeZoneConfig)
    return NodeHttpServer.layer(() => createServer({ formatLocal }), {
      port,
      host,
      gracefulShutdownTimeout: "20 seconds"
    })
  })
)

/** The HTTP application on whatever server, database and configuration it is given. */
export const HttpApp = HttpRouter.serve(Routes, { disableLogger: true }).pipe(Layer.provide(Adapters))

/**
 * The whole service: configuration (environment, then development secrets), logging, database,
 * adapters and the HTTP server. Closing its scope stops accepting, lets in-flight requests finish
 * and then closes the database pool.
 */
export const ServiceLive = Ready.layer.pipe(
  // Built after the app, so the ready line is the last line of a start.
  Layer.provide(HttpApp),
  Layer.provide(listen),
  Layer.provide(Database.layerConfig),
  // Secrets are resolved (and announced) with the service's logger, so production start-up logs stay JSON.
  Layer.provide(DevSecrets.layer.pipe(Layer.provideMerge(Logging.layerConfig())))
)
