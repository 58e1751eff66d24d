import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Api } from "@payments-gaming/api/Api"
import { MAX_BODY } from "@payments-gaming/api/middleware/BodyGuard"
import * as Serving from "@payments-gaming/composition/Serving"
import { Config, ConfigProvider, Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { BankingAdminHandlers, WalletHandlers } from "./banking/WalletHandlers.ts"
import { WebhookEventsHandlers } from "./banking/WebhookEventsHandlers.ts"
import { WebhookHandlers } from "./banking/WebhookHandlers.ts"
import { CardsHandlers } from "./cards/CardsHandlers.ts"
import { DevicesHandlers } from "./devices/DevicesHandlers.ts"
import { LedgerSealsHandlers } from "./ledger/LedgerSealsHandlers.ts"
import * as Authentication from "./middleware/Authentication.ts"
import * as BodyGuard from "./middleware/BodyGuard.ts"
import * as InternalKey from "./middleware/InternalKey.ts"
import * as RateLimit from "./middleware/RateLimit.ts"
import * as RequireAdmin from "./middleware/RequireAdmin.ts"
import * as ResponseMiddleware from "./middleware/ResponseMiddleware.ts"
import * as RoutePolicies from "./middleware/RoutePolicies.ts"
import * as SchemaErrors from "./middleware/SchemaErrors.ts"
import { createServer } from "./NodeServer.ts"
import { NotificationsHandlers } from "./notifications/NotificationsHandlers.ts"
import { PushHandlers } from "./push/PushHandlers.ts"
import * as Ready from "./Ready.ts"
import * as ResponseTime from "./ResponseTime.ts"
import { ReconciliationsHandlers } from "./reconciliation/ReconciliationsHandlers.ts"
import * as ServiceRoutes from "./ServiceRoutes.ts"
import * as DocsRoute from "./system/DocsRoute.ts"
import { SystemHandlers } from "./system/SystemHandlers.ts"
import { TriviaHandlers } from "./trivia/TriviaHandlers.ts"
import { WheelHandlers } from "./wheel/WheelHandlers.ts"

const ApiRoutes = HttpApiBuilder.layer(Api).pipe(
  Layer.provide([
    SystemHandlers,
    PushHandlers,
    TriviaHandlers,
    WebhookHandlers,
    WalletHandlers,
    BankingAdminHandlers,
    WebhookEventsHandlers,
    WheelHandlers,
    CardsHandlers,
    DevicesHandlers,
    NotificationsHandlers,
    LedgerSealsHandlers,
    ReconciliationsHandlers
  ]),
  Layer.provide([
    RoutePolicies.layer,
    SchemaErrors.layer,
    BodyGuard.layer,
    Authentication.layer,
    RequireAdmin.layer,
    InternalKey.layer
  ])
)

/**
 * Every route of the service: the API, its reference at /docs, its OpenAPI document, Prometheus at
 * /metrics and the groups' unknown paths (ServiceRoutes.ts). Each applies its own policies
 * (envelope, rate-limit class, metric label: middleware/MatchedRoute.ts), which the response
 * middleware reads from the route that answered.
 */
export const Routes = Layer.mergeAll(ApiRoutes, DocsRoute.layer, ServiceRoutes.layer, ResponseMiddleware.layer).pipe(
  Layer.provide(Layer.succeed(HttpServerRequest.MaxBodySize, MAX_BODY))
)

/**
 * The router's settings. `maxParamLength`: the longest path parameter matched. FindMyWay's default
 * is 100, shorter than a user id (1 to 128 characters, a token's `sub`), so the admin
 * user-statement route answered 404 for ids of 101 to 128 characters (issue 34).
 */
const ROUTER_CONFIG = { maxParamLength: 128 } as const

/** The app's own services: the response timestamps (APP_TIMEZONE) and the rate limits (RATE_LIMIT_*). */
const AppSettings = Layer.mergeAll(ResponseTime.layerConfig, RateLimit.layerConfig)

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

/** The routes served on the `HttpServer` it is given, with the app's settings and ports left to provide. */
const Serve = HttpRouter.serve(Routes, { disableLogger: true, routerConfig: ROUTER_CONFIG })

/** What the routes read: the app's settings and the composition root's ports (Serving.Ports). */
const AppPorts = Layer.mergeAll(AppSettings, Serving.Ports)

/**
 * The HTTP application on whatever server, database and configuration it is given, served with the
 * composition root's ports (Serving.Ports: authentication, the use cases, tracing).
 */
export const HttpApp = Serve.pipe(Layer.provide(AppPorts))

/**
 * The whole service: configuration (environment, then development secrets), logging, database,
 * adapters and the HTTP server. Closing its scope stops accepting, lets in-flight requests finish
 * and then closes the database pool.
 *
 * Built in this order: the platform, the app's ports, the listening server, the routes, the ready
 * line. The ports come before the server listens because building them takes event-loop turns
 * (statements, timers): a request the server accepted in one of them would wait for the routes
 * (NodeServer.ts answers it 503 until they serve). So the port opens when only the routes are left.
 */
export const ServiceLive = Ready.layer.pipe(
  Layer.provide(Serve),
  Layer.provide(listen),
  Layer.provide(AppPorts),
  Layer.provide(Serving.Platform)
)
