import { Context, type Effect, type Option } from "effect"
import type { Cause } from "../ledger/LedgerRecorder.ts"
import type { ListingPosition } from "./ListingCursor.ts"
import type { EventKind, NewWebhookEvent, Outcome, WebhookEvent } from "./Model.ts"

/** A final outcome of a stored event, with why and when. */
export interface SettledOutcome {
  readonly outcome: Exclude<Outcome, "received" | "conflict">
  readonly reason: string | null
  readonly processedAt: Date
}

/** What an event says when its posting was in the ledger before it (see `WebhookInbox.credit`). */
export type HeldOutcome = Pick<SettledOutcome, "outcome" | "reason">

export type StoreResult =
  /** `posted`: the event's posting was given (`credit`) and its ledger transaction is new. */
  | { readonly _tag: "Stored"; readonly event: WebhookEvent; readonly posted: boolean }
  /** An event with the same kind and reference was stored before; nothing was written. */
  | { readonly _tag: "Duplicate"; readonly event: WebhookEvent }

/** A stored event without its body and signature: what a listing needs, without reading every body. */
export type WebhookEventHeader = Omit<WebhookEvent, "rawBody" | "signature">

/**
 * Every verified, decodable webhook, kept with its raw body so it can be replayed. Uniqueness of
 * (kind, reference) is the store's job (a unique constraint), not a check-then-insert, so
 * concurrent deliveries from any number of processes store one event. `conflict` events stand
 * outside that uniqueness: any number may be kept beside the one event of their key.
 */
export class WebhookInbox extends Context.Service<
  WebhookInbox,
  {
    /**
     * Stores the event with the outcome its caller decided (so nothing else ever sees it before its
     * outcome), or reports the one already stored under its key (never a `conflict` event), writing
     * nothing. An event with a posting (a deposit's credit) is stored by the ledger instead (`credit`).
     */
    store(event: NewWebhookEvent, outcome: SettledOutcome): Effect.Effect<StoreResult>
    /**
     * A deposit's event as the cause of its credit, for `LedgerRecorder.record(credit, posting)`,
     * which writes the event, the posting and its notification atomically, on their own or inside
     * the caller's unit of work: the posting only when the event is new (a duplicate answers the
     * one stored, writing nothing), the notification only when the posting is. `held` is the
     * outcome stored instead when the ledger holds the posting's transaction already (a deposit
     * credited before its event was stored), decided in the same write, so the event reads it from
     * the start; without it, `outcome` either way. Under a concurrent post of the same transaction
     * the write may still store `outcome` with `posted: false`; the returned event says which was
     * stored.
     */
    credit(event: NewWebhookEvent, outcome: SettledOutcome, held?: HeldOutcome): Cause<StoreResult>
    /**
     * Stores a redelivery that disagrees with the event of its key, final as `conflict`, once per
     * distinct conflict: when a conflict of the same (kind, reference) with the same `reason` (the
     * stored event and each differing field with both values, decoded) is kept already, nothing is
     * written and that one is returned with `repeated: true` (issue 34).
     */
    storeConflict(
      event: NewWebhookEvent,
      reason: string,
      processedAt: Date
    ): Effect.Effect<{ readonly event: WebhookEvent; readonly repeated: boolean }>
    find(id: string): Effect.Effect<Option.Option<WebhookEvent>>
    /** As `find`, and holds the event against concurrent replays until the unit of work ends. */
    findForUpdate(id: string): Effect.Effect<Option.Option<WebhookEvent>>
    /** Oldest first; `outcome: "conflict"` lists the conflicting redeliveries. */
    list(filter: {
      readonly outcome?: Outcome | undefined
      readonly limit: number
      readonly offset: number
    }): Effect.Effect<ReadonlyArray<WebhookEvent>>
    /**
     * Newest first (received_at, then id, descending), strictly after `after`: a keyset page for
     * operators, read on an index whatever the filters (migration 0011).
     */
    listPage(filter: {
      readonly outcome?: Outcome | undefined
      readonly kind?: EventKind | undefined
      /** Only the events of this `data.reference` (the original, and any conflicts of it). */
      readonly reference?: string | undefined
      readonly after?: ListingPosition | undefined
      readonly limit: number
    }): Effect.Effect<ReadonlyArray<WebhookEventHeader>>
    markOutcome(
      id: string,
      outcome: Exclude<Outcome, "received" | "conflict">,
      reason: string | null,
      processedAt: Date
    ): Effect.Effect<void>
  }
>()("@payments-gaming/domain/banking/WebhookInbox") {}
