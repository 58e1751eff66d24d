import { Effect, Layer, Option } from "effect"
import { layerMemory as layerMemoryLedger, MemoryDatabase, memoryCause } from "../ledger/testing.ts"
import { layerMemoryOutbox } from "../notifications/testing.ts"
import { BankingService } from "./BankingService.ts"
import { DeadLetters } from "./DeadLetters.ts"
import { InvalidSignature } from "./Errors.ts"
import type { ListingPosition } from "./ListingCursor.ts"
import type { DeadLetter, NewWebhookEvent, Transfer, VirtualAccount, WebhookEvent } from "./Model.ts"
import { Transfers } from "./Transfers.ts"
import { VirtualAccounts } from "./VirtualAccounts.ts"
import { WebhookEventsService } from "./WebhookEventsService.ts"
import { type SettledOutcome, type StoreResult, WebhookInbox } from "./WebhookInbox.ts"
import { WebhookVerifier } from "./WebhookVerifier.ts"

/** Deterministic ids shaped like UUIDs, so code that checks the shape accepts them. */
const uuidFrom = (sequence: number) => `00000000-0000-4000-8000-${sequence.toString(16).padStart(12, "0")}`

/**
 * Newest first, strictly after `after`, as PostgreSQL orders (received_at, id) descending: its uuid
 * order is the order of the lowercase text, which is how these ids compare.
 */
const newestFirst = <Row extends ListingPosition>(rows: ReadonlyArray<Row>, after: ListingPosition | undefined) => {
  const before = (row: ListingPosition, position: ListingPosition) =>
    row.receivedAt.getTime() < position.receivedAt.getTime() ||
    (row.receivedAt.getTime() === position.receivedAt.getTime() && row.id < position.id)
  return rows
    .filter((row) => after === undefined || before(row, after))
    .sort((a, b) => b.receivedAt.getTime() - a.receivedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
}

/** The row under `key`, or a new one made at the current time: what an INSERT … ON CONFLICT DO NOTHING finds. */
const insertOnce = <Row>(
  db: MemoryDatabase["Service"],
  table: Map<string, Row>,
  key: string,
  make: (at: Date) => Row
) =>
  db.atomically(
    Effect.gen(function* () {
      const existing = table.get(key)
      if (existing !== undefined) return { created: false, row: existing }
      const row = make(new Date(yield* Effect.clockWith((c) => c.currentTimeMillis)))
      table.set(key, row)
      return { created: true, row }
    })
  )

interface EventRow {
  readonly event: WebhookEvent
  readonly sequence: number
}

export const layerMemoryWebhookInbox = Layer.effect(
  WebhookInbox,
  Effect.gen(function* () {
    const db = yield* MemoryDatabase
    const events = db.table<EventRow>("banking.webhook_events")
    const byKey = db.table<string>("banking.webhook_events.dedup")
    let sequence = 0

    const find = (id: string) =>
      db.atomically(Effect.sync(() => Option.map(Option.fromUndefinedOr(events.get(id)), (row) => row.event)))

    /** The event stored with `settled`, or the one stored under its key before; `written` when new. */
    const insert = (input: NewWebhookEvent, settled: SettledOutcome) =>
      Effect.sync((): { readonly written: boolean; readonly event: WebhookEvent } => {
        const existing = byKey.get(`${input.kind}:${input.reference}`)
        if (existing !== undefined) return { written: false, event: events.get(existing)!.event }
        sequence += 1
        const event: WebhookEvent = {
          id: uuidFrom(sequence),
          ...input,
          outcome: settled.outcome,
          reason: settled.reason,
          processedAt: settled.processedAt
        }
        events.set(event.id, { event, sequence })
        byKey.set(`${input.kind}:${input.reference}`, event.id)
        return { written: true, event }
      })

    return WebhookInbox.of({
      store: (input, settled) =>
        db.atomically(
          Effect.map(
            insert(input, settled),
            ({ written, event }): StoreResult =>
              written ? { _tag: "Stored", event, posted: false } : { _tag: "Duplicate", event }
          )
        ),
      // Applied by the memory recorder inside its transaction, as PostgreSQL's one statement: the held
      // outcome is the one stored when the ledger held the posting before.
      credit: (input, settled, held) =>
        memoryCause((ledgerHeld) =>
          Effect.map(
            insert(input, ledgerHeld && held !== undefined ? { ...settled, ...held } : settled),
            ({ written, event }) => ({
              written,
              answer: (posted: boolean) =>
                Effect.succeed<StoreResult>(written ? { _tag: "Stored", event, posted } : { _tag: "Duplicate", event })
            })
          )
        ),
      storeConflict: (input, reason, processedAt) =>
        db.atomically(
          Effect.sync(() => {
            // One row per distinct conflict: the same (kind, reference, reason) names the one kept.
            for (const { event } of events.values()) {
              if (
                event.outcome === "conflict" &&
                event.kind === input.kind &&
                event.reference === input.reference &&
                event.reason === reason
              ) {
                return { event, repeated: true }
              }
            }
            sequence += 1
            // Not indexed by key: the key keeps naming the first event.
            const event: WebhookEvent = { id: uuidFrom(sequence), ...input, outcome: "conflict", reason, processedAt }
            events.set(event.id, { event, sequence })
            return { event, repeated: false }
          })
        ),
      find,
      findForUpdate: find,
      list: ({ outcome, limit, offset }) =>
        db.atomically(
          Effect.sync(() =>
            [...events.values()]
              .filter((row) => outcome === undefined || row.event.outcome === outcome)
              .sort((a, b) => a.event.receivedAt.getTime() - b.event.receivedAt.getTime() || a.sequence - b.sequence)
              .slice(offset, offset + limit)
              .map((row) => row.event)
          )
        ),
      listPage: ({ outcome, kind, reference, after, limit }) =>
        db.atomically(
          Effect.sync(() =>
            newestFirst(
              [...events.values()]
                .map((row) => row.event)
                .filter(
                  (event) =>
                    (outcome === undefined || event.outcome === outcome) &&
                    (kind === undefined || event.kind === kind) &&
                    (reference === undefined || event.reference === reference)
                ),
              after
            ).slice(0, limit)
          )
        ),
      markOutcome: (id, outcome, reason, processedAt) =>
        db.atomically(
          Effect.sync(() => {
            const row = events.get(id)
            if (row !== undefined) events.set(id, { ...row, event: { ...row.event, outcome, reason, processedAt } })
          })
        )
    })
  })
)

export const layerMemoryDeadLetters = Layer.effect(
  DeadLetters,
  Effect.gen(function* () {
    const db = yield* MemoryDatabase
    const letters = db.table<DeadLetter>("banking.dead_letters")
    let sequence = 0
    return DeadLetters.of({
      add: (letter) =>
        db.atomically(
          Effect.sync(() => {
            sequence += 1
            const stored: DeadLetter = { id: uuidFrom(sequence), ...letter }
            letters.set(stored.id, stored)
            return stored
          })
        ),
      list: ({ limit, offset }) =>
        db.atomically(Effect.sync(() => [...letters.values()].reverse().slice(offset, offset + limit))),
      listPage: ({ after, limit }) =>
        db.atomically(Effect.sync(() => newestFirst([...letters.values()], after).slice(0, limit)))
    })
  })
)

export const layerMemoryVirtualAccounts = Layer.effect(
  VirtualAccounts,
  Effect.gen(function* () {
    const db = yield* MemoryDatabase
    const accounts = db.table<VirtualAccount>("banking.virtual_accounts")
    return VirtualAccounts.of({
      insert: (input) =>
        Effect.map(
          insertOnce(db, accounts, input.accountNumber, (at): VirtualAccount => ({ ...input, createdAt: at })),
          ({ created, row }) => ({ created, account: row })
        ),
      find: (accountNumber) => db.atomically(Effect.sync(() => Option.fromUndefinedOr(accounts.get(accountNumber))))
    })
  })
)

export const layerMemoryTransfers = Layer.effect(
  Transfers,
  Effect.gen(function* () {
    const db = yield* MemoryDatabase
    const transfers = db.table<Transfer>("banking.transfers")
    const find = (reference: string) =>
      db.atomically(Effect.sync(() => Option.fromUndefinedOr(transfers.get(reference))))
    return Transfers.of({
      // Applied by the memory recorder inside its transaction, before the hold's posting.
      opened: (input) =>
        memoryCause(() =>
          Effect.map(
            insertOnce(
              db,
              transfers,
              input.reference,
              (at): Transfer => ({ ...input, status: "PENDING", createdAt: at, updatedAt: at })
            ),
            ({ created, row }) => ({
              written: created,
              answer: () => Effect.succeed({ created, transfer: row })
            })
          )
        ),
      find,
      findForUpdate: find,
      finished: (reference, status, at) =>
        memoryCause(() =>
          Effect.sync(() => {
            const transfer = transfers.get(reference)
            if (transfer === undefined || transfer.status !== "PENDING") {
              return { written: false, answer: () => Effect.succeed(Option.none<Transfer>()) }
            }
            const finished: Transfer = { ...transfer, status, updatedAt: at }
            transfers.set(reference, finished)
            return { written: true, answer: () => Effect.succeed(Option.some(finished)) }
          })
        )
    })
  })
)

/** A verifier that accepts exactly one signature value: enough to test code that calls it. */
export const layerVerifierAccepting = (validSignature: string) =>
  Layer.succeed(
    WebhookVerifier,
    WebhookVerifier.of({
      verify: (_rawBody, signature) =>
        signature === validSignature ? Effect.void : Effect.fail(new InvalidSignature({ message: "Invalid signature" }))
    })
  )

/** Every banking repository in memory, sharing the ledger's `MemoryDatabase`; their causes are written by the memory `LedgerRecorder`. */
export const layerMemoryRepositories = Layer.mergeAll(
  layerMemoryWebhookInbox,
  layerMemoryDeadLetters,
  layerMemoryVirtualAccounts,
  layerMemoryTransfers
)

/**
 * `BankingService` and `WebhookEventsService` on in-memory ports, with the ports, the ledger and the
 * notification outbox (with its devices) exposed for assertions.
 */
export const layerMemory = Layer.merge(BankingService.layer, WebhookEventsService.layer).pipe(
  Layer.provideMerge(layerMemoryRepositories),
  Layer.provideMerge(layerMemoryOutbox),
  Layer.provideMerge(layerMemoryLedger)
)
