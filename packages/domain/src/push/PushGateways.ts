import { Context, type Effect } from "effect"
import type { PushNotification, PushResult, TokenType } from "./Model.ts"

/**
 * One provider's sender. It never fails: a refusal, a transport error or a time-out is a
 * `PushResult` with `success: false`, so the caller always learns what to do with the token.
 */
export interface PushGateway {
  /** Names the provider in the delivery log: `fcm`, `apns` or `development-sink`. */
  readonly name: string
  /** False when this gateway stands in for a provider that has no credentials. */
  readonly configured: boolean
  readonly send: (token: string, notification: PushNotification) => Effect.Effect<PushResult>
}

/** The gateway for each kind of device token. */
export class PushGateways extends Context.Service<PushGateways, { readonly [K in TokenType]: PushGateway }>()(
  "@payments-gaming/domain/push/PushGateways"
) {}
