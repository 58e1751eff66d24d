import { HttpApi, OpenApi } from "effect/http-api"
import { BankingAdminApi, WalletApi } from "./banking/WalletApi.ts"
import { WebhookApi } from "./banking/WebhookApi.ts"
import { WebhookEventsApi } from "./banking/WebhookEventsApi.ts"
import { CardsApi } from "./cards/CardsApi.ts"
import { DevicesApi } from "./devices/DevicesApi.ts"
import { LedgerSealsApi } from "./ledger/LedgerSealsApi.ts"
import { BodyGuard } from "./middleware/BodyGuard.ts"
import { RoutePolicies } from "./middleware/RoutePolicies.ts"
import { SchemaErrors } from "./middleware/SchemaErrors.ts"
import { NotificationsApi } from "./notifications/NotificationsApi.ts"
import { completeDocument } from "./OpenApiDocument.ts"
import { documentCommonResponses } from "./OpenApiResponses.ts"
import { PushApi } from "./push/PushApi.ts"
import { ReconciliationsApi } from "./reconciliation/ReconciliationsApi.ts"
import { SystemApi } from "./system/SystemApi.ts"
import { TriviaApi } from "./trivia/TriviaApi.ts"
import { WheelApi } from "./wheel/WheelApi.ts"

// The groups and their route policies, which the OpenAPI document's transform below reads.
const Routes = HttpApi.make("payments-gaming")
  .add(SystemApi)
  .add(PushApi)
  .add(TriviaApi)
  .add(WebhookApi)
  .add(WalletApi)
  .add(BankingAdminApi)
  .add(WebhookEventsApi)
  .add(WheelApi)
  .add(CardsApi)
  .add(DevicesApi)
  .add(NotificationsApi)
  .add(LedgerSealsApi)
  .add(ReconciliationsApi)
  .middleware(SchemaErrors)
  // A body no field may hold is refused before authentication and decoding.
  .middleware(BodyGuard)
  // Added last, so it runs first: the route's envelope and per-address limit hold for all of the above.
  .middleware(RoutePolicies)

/**
 * The HTTP contract of the service: one group per area, every decode failure shaped as a 400, every
 * body guarded against NUL and invalid UTF-8 (BodyGuard, per route).
 */
export class Api extends Routes.annotate(HttpApi.PayloadParseOptions, { errors: "all" }).annotateMerge(
  OpenApi.annotations({
    title: "Payments and Gaming Service",
    version: "1.0.0",
    description:
      "Push debug sending, spin-and-win, trivia challenges, payment cards and the core-banking webhook. " +
      "Every response but the webhook's uses the envelope { timestamp, status, success, message, data }.",
    // The service is not published for reuse: its code is proprietary to its owner.
    license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    transform: (spec) => completeDocument(documentCommonResponses(Routes, spec))
  })
) {}
