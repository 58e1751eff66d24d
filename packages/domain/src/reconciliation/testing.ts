import { Effect, Layer, Option } from "effect"
import type { WebhookEvent } from "../banking/Model.ts"
import { layerMemory as layerMemoryBanking } from "../banking/testing.ts"
import { MemoryDatabase } from "../ledger/testing.ts"
import { ReconciliationService } from "./ReconciliationService.ts"
import { Reconciliations } from "./Reconciliations.ts"
import type { Reconciliation, StoredBreak } from "./Records.ts"
import { noBreaks } from "./Records.ts"

const uuidFrom = (prefix: string, sequence: number) =>
  `${prefix}-0000-4000-8000-${sequence.toString(16).padStart(12, "0")}`

/**
 * `Reconciliations` in memory, in the ledger's `MemoryDatabase`: it reads the banking memory
 * inbox's table (`banking.webhook_events`) as the PostgreSQL adapter reads `webhook_events`.
 */
export const layerMemoryReconciliations = Layer.effect(
  Reconciliations,
  Effect.gen(function* () {
    const db = yield* MemoryDatabase
    const reconciliations = db.table<Reconciliation>("reconciliation.reconciliations")
    const byContent = db.table<string>("reconciliation.reconciliations.content")
    const breaks = db.table<StoredBreak>("reconciliation.breaks")
    const events = db.table<{ readonly event: WebhookEvent }>("banking.webhook_events")
    // The store's scratch of an import's names: restored with every table when a unit fails, as
    // PostgreSQL's temporary table goes with its transaction; memory's growth does not matter here.
    const names = db.table<number>("reconciliation.named")
    const nameKey = (importId: string, kind: string, reference: string) => `${importId}\u0000${kind}\u0000${reference}`
    let sequence = 0

    const stored = (id: string) => {
      const found = reconciliations.get(id)
      if (found === undefined) throw new Error(`no reconciliation ${id}`)
      return found
    }

    return Reconciliations.of({
      create: (input) =>
        db.atomically(
          Effect.sync(() => {
            const existing = byContent.get(`${input.date}/${input.sha256}`)
            if (existing !== undefined) return { created: false, reconciliation: stored(existing) }
            const reconciliation: Reconciliation = {
              id: uuidFrom("00000000", ++sequence),
              date: input.date,
              sha256: input.sha256,
              importedAt: input.importedAt,
              lines: 0,
              matched: 0,
              byKind: noBreaks,
              resolved: 0
            }
            reconciliations.set(reconciliation.id, reconciliation)
            byContent.set(`${input.date}/${input.sha256}`, reconciliation.id)
            return { created: true, reconciliation }
          })
        ),
      setCounts: (id, counts) =>
        db.atomically(
          Effect.sync(() => {
            const updated = { ...stored(id), ...counts }
            reconciliations.set(id, updated)
            return updated
          })
        ),
      addBreaks: (reconciliationId, added) =>
        db.atomically(
          Effect.sync(() => {
            for (const one of added) {
              const id = uuidFrom("00000001", ++sequence)
              breaks.set(id, { ...one, id, reconciliationId, status: "open", resolution: null })
            }
          })
        ),
      find: (id) => db.atomically(Effect.sync(() => Option.fromUndefinedOr(reconciliations.get(id)))),
      list: ({ after, limit }) =>
        db.atomically(
          Effect.sync(() =>
            [...reconciliations.values()]
              .filter(
                (row) =>
                  after === undefined ||
                  row.importedAt.getTime() < after.importedAt.getTime() ||
                  (row.importedAt.getTime() === after.importedAt.getTime() && row.id < after.id)
              )
              .sort((a, b) => b.importedAt.getTime() - a.importedAt.getTime() || (a.id < b.id ? 1 : -1))
              .slice(0, limit)
          )
        ),
      breaks: (filter) =>
        db.atomically(
          Effect.sync(() =>
            [...breaks.values()]
              .filter(
                (row) =>
                  row.reconciliationId === filter.reconciliationId &&
                  (filter.kind === undefined || row.kind === filter.kind) &&
                  (filter.status === undefined || row.status === filter.status) &&
                  (filter.after === undefined || row.ordinal > filter.after)
              )
              .sort((a, b) => a.ordinal - b.ordinal)
              .slice(0, filter.limit)
          )
        ),
      findBreakForUpdate: (reconciliationId, breakId) =>
        db.atomically(
          Effect.sync(() =>
            Option.filter(
              Option.fromUndefinedOr(breaks.get(breakId)),
              (row) => row.reconciliationId === reconciliationId
            )
          )
        ),
      resolve: (breakId, resolution) =>
        db.atomically(
          Effect.sync(() => {
            const row = breaks.get(breakId)
            if (row === undefined) throw new Error(`no break ${breakId}`)
            const resolved: StoredBreak = { ...row, status: "resolved", resolution }
            breaks.set(breakId, resolved)
            const parent = stored(row.reconciliationId)
            reconciliations.set(parent.id, { ...parent, resolved: parent.resolved + 1 })
            return resolved
          })
        ),
      openBreaks: db.atomically(
        Effect.sync(() => {
          const counts = { ...noBreaks }
          for (const row of breaks.values()) if (row.status === "open") counts[row.kind]++
          return counts
        })
      ),
      nameLines: (importId, lines) =>
        db.atomically(
          Effect.sync(() => {
            const again: Array<{ readonly line: number; readonly firstLine: number }> = []
            for (const { kind, reference, line } of lines) {
              const key = nameKey(importId, kind, reference)
              const first = names.get(key)
              if (first === undefined) names.set(key, line)
              else again.push({ line, firstLine: first })
            }
            return again
          })
        ),
      storedEvents: (keys) =>
        db.atomically(
          Effect.sync(() => {
            const wanted = new Set(keys.map(({ kind, reference }) => `${kind}\u0000${reference}`))
            return [...events.values()]
              .map(({ event }) => event)
              .filter((event) => event.outcome !== "conflict" && wanted.has(`${event.kind}\u0000${event.reference}`))
          })
        ),
      unnamedAppliedEvents: (importId, { receivedFrom, after, limit }) =>
        db.atomically(
          Effect.sync(() => {
            const order = (a: WebhookEvent, b: { readonly receivedAt: Date; readonly id: string }) =>
              a.receivedAt.getTime() - b.receivedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
            return [...events.values()]
              .map(({ event }) => event)
              .filter(
                (event) =>
                  event.outcome === "processed" &&
                  event.kind !== "ignored" &&
                  !names.has(nameKey(importId, event.kind, event.reference)) &&
                  event.receivedAt.getTime() >= receivedFrom.getTime() &&
                  (after === undefined || order(event, after) > 0)
              )
              .sort(order)
              .slice(0, limit)
          })
        )
    })
  })
)

/**
 * `ReconciliationService` on in-memory ports, beside banking's whole memory setup (its service,
 * ports, ledger and outbox exposed), on one `MemoryDatabase`: a webhook and a resolve meet there.
 */
export const layerMemory = ReconciliationService.layer.pipe(
  Layer.provideMerge(layerMemoryReconciliations),
  Layer.provideMerge(layerMemoryBanking)
)
