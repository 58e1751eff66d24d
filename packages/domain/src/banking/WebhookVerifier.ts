import { Context, type Effect } from "effect"
import type { InvalidSignature } from "./Errors.ts"

/**
 * Checks `X-Provider-Signature` against the exact raw body before anything is parsed or stored.
 * `undefined` is a missing header.
 */
export class WebhookVerifier extends Context.Service<
  WebhookVerifier,
  {
    verify(rawBody: Uint8Array, signature: string | undefined): Effect.Effect<void, InvalidSignature>
  }
>()("@payments-gaming/domain/banking/WebhookVerifier") {}
