import { Envelope, ReducedEnvelope } from "@payments-gaming/api/Envelope"
import { SpinData, WheelData } from "@payments-gaming/api/wheel/WheelApi"
import {
  DeadLetterPage,
  ReplayResult,
  TransferView,
  VirtualAccountView,
  WalletView,
  WebhookEventDetail,
  WebhookEventPage
} from "@payments-gaming/domain/banking"
import { Card } from "@payments-gaming/domain/cards"
import { DeviceView } from "@payments-gaming/domain/devices"
import { StatementPage } from "@payments-gaming/domain/ledger"
import { NotificationView, RetryResult } from "@payments-gaming/domain/notifications"
import { PushResult } from "@payments-gaming/domain/push"
import { BreakPage, BreakView, ReconciliationPage, ReconciliationView } from "@payments-gaming/domain/reconciliation"
import { Challenge } from "@payments-gaming/domain/trivia"
import { ClientSeedState, RoundAudit } from "@payments-gaming/domain/wheel"
import { Schema } from "effect"
import { routedPath } from "./Timestamps.ts"

const strict = { onExcessProperty: "error" } as const

/** The 2xx body of every route, as CONTRACT §3–4 describe it; excess keys are a problem too. */
const ROUTES: ReadonlyArray<readonly [method: string, path: RegExp, body: Schema.Top]> = [
  ["GET", /^\/healthz$/, Envelope(Schema.Struct({ status: Schema.Literal("ok") }))],
  ["GET", /^\/readyz$/, Envelope(Schema.Struct({ database: Schema.Literal("ok") }))],
  ["POST", /^\/v1\/debug\/push-direct$/, PushResult],
  ["GET", /^\/v1\/spin-and-win$/, Envelope(WheelData)],
  ["POST", /^\/v1\/spin-and-win\/spin$/, Envelope(SpinData)],
  ["GET", /^\/v1\/spin-and-win\/rounds\/[^/]+$/, Envelope(RoundAudit)],
  ["GET", /^\/v1\/spin-and-win\/client-seed$/, Envelope(ClientSeedState)],
  ["PUT", /^\/v1\/spin-and-win\/client-seed$/, Envelope(ClientSeedState)],
  ["PUT", /^\/v1\/gaming\/trivia\/challenges\/[^/]+$/, Envelope(Schema.String)],
  ["POST", /^\/v1\/gaming\/trivia\/challenges$/, Envelope(Challenge)],
  ["GET", /^\/v1\/gaming\/trivia\/challenges\/[^/]+$/, Envelope(Challenge)],
  ["GET", /^\/v1\/gaming\/trivia\/challenges$/, Envelope(Schema.Array(Challenge))],
  ["POST", /^\/v1\/user\/cards$/, Envelope(Card)],
  ["GET", /^\/v1\/user\/cards$/, Envelope(Schema.Array(Card))],
  ["DELETE", /^\/v1\/user\/cards\/[^/]+$/, Envelope(Schema.Null)],
  ["PUT", /^\/v1\/user\/devices$/, Envelope(DeviceView)],
  ["GET", /^\/v1\/user\/devices$/, Envelope(Schema.Array(DeviceView))],
  ["DELETE", /^\/v1\/user\/devices\/[^/]+$/, Envelope(Schema.Null)],
  [
    "POST",
    /^\/v1\/webhook\/core-banking\/provider$/,
    ReducedEnvelope(Schema.Literal("OK")).check(
      Schema.makeFilter((body) => body.status === 200 && body.message === "Webhook processed successfully")
    )
  ],
  ["GET", /^\/v1\/wallet$/, Envelope(WalletView)],
  ["GET", /^\/v1\/wallet\/transactions$/, Envelope(StatementPage)],
  ["GET", /^\/v1\/admin\/users\/[^/]+\/transactions$/, Envelope(StatementPage)],
  ["PUT", /^\/v1\/admin\/virtual-accounts\/[^/]+$/, Envelope(VirtualAccountView)],
  ["POST", /^\/v1\/admin\/transfers$/, Envelope(TransferView)],
  ["GET", /^\/v1\/admin\/webhook-events$/, Envelope(WebhookEventPage)],
  ["POST", /^\/v1\/admin\/webhook-events\/replay$/, Envelope(Schema.Array(ReplayResult))],
  ["GET", /^\/v1\/admin\/webhook-events\/[^/]+$/, Envelope(WebhookEventDetail)],
  ["POST", /^\/v1\/admin\/webhook-events\/[^/]+\/replay$/, Envelope(ReplayResult)],
  ["GET", /^\/v1\/admin\/dead-letters$/, Envelope(DeadLetterPage)],
  ["GET", /^\/v1\/admin\/notifications$/, Envelope(Schema.Array(NotificationView))],
  ["POST", /^\/v1\/admin\/notifications\/retry$/, Envelope(Schema.Array(RetryResult))],
  ["POST", /^\/v1\/admin\/notifications\/[^/]+\/retry$/, Envelope(RetryResult)],
  ["POST", /^\/v1\/admin\/reconciliations$/, Envelope(ReconciliationView)],
  ["GET", /^\/v1\/admin\/reconciliations$/, Envelope(ReconciliationPage)],
  ["GET", /^\/v1\/admin\/reconciliations\/[^/]+$/, Envelope(ReconciliationView)],
  ["GET", /^\/v1\/admin\/reconciliations\/[^/]+\/breaks$/, Envelope(BreakPage)],
  ["POST", /^\/v1\/admin\/reconciliations\/[^/]+\/breaks\/[^/]+\/resolve$/, Envelope(BreakView)]
]

/** Routes that answer something other than JSON, or no body at all. */
const OTHER = [/^\/metrics$/, /^\/openapi\.json$/, /^\/docs$/]

/**
 * What is wrong with a 2xx answer to `method` on `pathname`, or undefined when it is the body the
 * route documents. A 2xx from a path no route claims is itself a finding.
 */
export const successProblem = (method: string, pathname: string, json: unknown): string | undefined => {
  // The router ends a path at ";" (matrix parameters), so "/challenges/;x" is the list.
  const path = routedPath(pathname.split(";")[0] ?? "").replace(/(.)\/$/, "$1")
  if (OTHER.some((pattern) => pattern.test(path))) return undefined
  const route = ROUTES.find(([routeMethod, pattern]) => routeMethod === method && pattern.test(path))
  if (route === undefined) return `2xx from ${method} ${pathname}, which no route documents`
  const exit = Schema.decodeUnknownExit(route[2] as Schema.Codec<unknown, unknown>, strict)(json)
  return exit._tag === "Success" ? undefined : `2xx body does not match the route's schema: ${String(exit.cause)}`
}
