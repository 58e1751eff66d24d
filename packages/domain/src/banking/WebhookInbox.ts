import { Context, type Effect, type Option } from "effect"
import type { NewWebhookEvent, Outcome, WebhookEvent } from "./Model.ts"

export type StoreResult =
  | { readonly _tag: "Stored"; readonly event: WebhookEvent }
  /** An event with the same kind and reference was stored before; nothing was written. */
  | { readonly _tag: "Duplicate"; readonly event: WebhookEvent }

/**
 * Every verified, decodable webhook, kept with its raw body so it can be replayed. Uniqueness of
 * (kind, reference) is the store's job (a unique constraint), not a check-then-insert, so
 * concurrent deliveries from any number of processes store one event.
 */
export class WebhookInbox extends Context.Service<
  WebhookInbox,
  {
    /** Stores the event with outcome `received`, or reports the one already stored under its key. */
    store(event: NewWebhookEvent): Effect.Effect<StoreResult>
    find(id: string): Effect.Effect<Option.Option<WebhookEvent>>
    /** As `find`, and holds the event against concurrent replays until the unit of work ends. */
    findForUpdate(id: string): Effect.Effect<Option.Option<WebhookEvent>>
    /** Oldest first. */
    list(filter: {
      readonly outcome?: Outcome | undefined
      readonly limit: number
      readonly offset: number
    }): Effect.Effect<ReadonlyArray<WebhookEvent>>
    markOutcome(
      id: string,
      outcome: Exclude<Outcome, "received">,
      reason: string | null,
      processedAt: Date
    ): Effect.Effect<void>
  }
>()("@payments-gaming/domain/banking/WebhookInbox") {}
