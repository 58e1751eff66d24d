import { Context, Duration, Effect, Layer, Option, Redacted, Ref } from "effect"
import type { UserId } from "../auth/Model.ts"
import { Devices } from "../devices/Devices.ts"
import type { DeviceId, DeviceRegistration, TokenType } from "../devices/Model.ts"
import { makeMemoryDevices } from "../devices/testing.ts"
import { layerMemoryDatabase, MemoryDatabase, memoryNotice } from "../ledger/testing.ts"
import type {
  AttemptFacts,
  AttemptOutcome,
  ClaimedNotification,
  NotificationView,
  OutboxEvent,
  OutboxStatus,
  RetryableStatus,
  TemplateCode
} from "./Model.ts"
import { NotificationOutbox } from "./NotificationOutbox.ts"

/** One row of the in-memory outbox, as `notification_outbox` holds it. */
export interface MemoryOutboxRow {
  readonly id: string
  readonly eventKey: string
  readonly userId: UserId
  readonly deviceId: string
  readonly templateCode: TemplateCode
  readonly title: string
  readonly body: string
  readonly status: OutboxStatus
  readonly attempts: number
  readonly nextAttemptAt: number
  readonly claimedUntil: number | null
  readonly claimId: string | null
  readonly lastError: string | null
  readonly providerMessageId: string | null
  readonly createdAt: number
  readonly updatedAt: number
  readonly sequence: number
  /** A push of the row left under its claim and its outcome is not recorded yet. */
  readonly sendStartedAt: number | null
  readonly inDoubt: boolean
  readonly resends: number
}

interface DeviceEntry {
  readonly userId: UserId
  readonly tokenType: TokenType
  readonly token: string
  readonly active: boolean
}

/** What tests read back from the in-memory outbox. */
export class NotificationsMemory extends Context.Service<
  NotificationsMemory,
  { readonly rows: Effect.Effect<ReadonlyArray<MemoryOutboxRow>> }
>()("@payments-gaming/domain/notifications/testing/NotificationsMemory") {}

const uuidFrom = (prefix: string, sequence: number) =>
  `${prefix}-0000-4000-8000-${sequence.toString(16).padStart(12, "0")}`

const iso = (millis: number) => new Date(millis).toISOString()

/** A row sent back to the queue by an operator: due now, its attempts and claim forgotten. */
const requeue = (row: MemoryOutboxRow, at: number): MemoryOutboxRow => ({
  ...row,
  status: "pending",
  attempts: 0,
  nextAttemptAt: at,
  claimedUntil: null,
  claimId: null,
  sendStartedAt: null,
  updatedAt: at
})

const viewOf = (row: MemoryOutboxRow): NotificationView => ({
  id: row.id,
  eventKey: row.eventKey,
  userId: row.userId,
  deviceId: row.deviceId,
  templateCode: row.templateCode,
  title: row.title,
  body: row.body,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: iso(row.nextAttemptAt),
  lastError: row.lastError,
  providerMessageId: row.providerMessageId,
  createdAt: iso(row.createdAt),
  updatedAt: iso(row.updatedAt),
  resends: row.resends,
  inDoubt: row.inDoubt,
  unconfirmed: row.sendStartedAt !== null,
  // The in-memory push log is not joined to the outbox.
  deliveries: []
})

/**
 * `Devices` (the devices area's in-memory layer) and an outbox on the shared `MemoryDatabase`, so
 * an `enqueue` inside a ledger unit of work rolls back with it. The outbox reads the devices'
 * tokens as the SQL adapter reads `user_devices`; time is the `Clock` (TestClock in tests).
 */
export const layerMemoryOutbox: Layer.Layer<NotificationOutbox | NotificationsMemory | Devices, never, MemoryDatabase> =
  Layer.effectContext(
    Effect.gen(function* () {
      const db = yield* MemoryDatabase
      const table = db.table<MemoryOutboxRow>("notifications.outbox")
      const inner = yield* makeMemoryDevices
      // The tokens behind the devices area's views, kept as `user_devices` keeps them.
      const directory = yield* Ref.make<ReadonlyMap<string, DeviceEntry>>(new Map())
      let sequence = 0
      let claims = 0
      const now = Effect.clockWith((clock) => clock.currentTimeMillis)

      const setEntry = (deviceId: string, update: (entry: DeviceEntry | undefined) => DeviceEntry | undefined) =>
        Ref.update(directory, (all) => {
          const next = new Map(all)
          const updated = update(all.get(deviceId))
          if (updated === undefined) next.delete(deviceId)
          else next.set(deviceId, updated)
          return next
        })

      const devices = Devices.of({
        register: (userId: UserId, registration: DeviceRegistration) =>
          Effect.tap(inner.register(userId, registration), ({ device }) =>
            setEntry(device.deviceId, () => ({
              userId,
              tokenType: registration.tokenType,
              token: Redacted.value(registration.token),
              active: true
            }))
          ),
        list: inner.list,
        remove: (userId: UserId, deviceId: DeviceId) =>
          Effect.tap(inner.remove(userId, deviceId), () =>
            setEntry(deviceId, (entry) => (entry === undefined ? entry : { ...entry, active: false }))
          ),
        deactivate: (deviceId: DeviceId, reason: string) =>
          Effect.tap(inner.deactivate(deviceId, reason), () =>
            setEntry(deviceId, (entry) => (entry === undefined ? entry : { ...entry, active: false }))
          )
      })

      const replace = (row: MemoryOutboxRow) => table.set(row.id, row)

      const enqueue = (event: OutboxEvent) =>
        db.atomically(
          Effect.gen(function* () {
            const at = yield* now
            const entries = yield* Ref.get(directory)
            let added = 0
            for (const [deviceId, entry] of entries) {
              if (entry.userId !== event.userId || !entry.active) continue
              const exists = [...table.values()].some(
                (row) => row.eventKey === event.eventKey && row.deviceId === deviceId
              )
              if (exists) continue
              sequence += 1
              added += 1
              replace({
                id: uuidFrom("00000000", sequence),
                eventKey: event.eventKey,
                userId: event.userId,
                deviceId,
                ...event.content,
                status: "pending",
                attempts: 0,
                nextAttemptAt: at,
                claimedUntil: null,
                claimId: null,
                lastError: null,
                providerMessageId: null,
                createdAt: at,
                updatedAt: at,
                sequence,
                sendStartedAt: null,
                inDoubt: false,
                resends: 0
              })
            }
            return added
          })
        )

      const outbox = NotificationOutbox.of({
        enqueue,
        notice: (event) => memoryNotice(enqueue(event)),
        claimDue: ({ limit, lease }) =>
          db.atomically(
            Effect.gen(function* () {
              const at = yield* now
              const entries = yield* Ref.get(directory)
              claims += 1
              const claimId = uuidFrom("c1a1a000", claims)
              const due = [...table.values()]
                .filter(
                  (row) =>
                    row.status === "pending" &&
                    row.nextAttemptAt <= at &&
                    (row.claimedUntil === null || row.claimedUntil < at)
                )
                .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.sequence - b.sequence)
                .slice(0, limit)
              return due.map((row): ClaimedNotification => {
                // A row whose lease ran out mid-send: that send counts as an attempt, and may have
                // reached the provider.
                const unconfirmed = row.sendStartedAt !== null
                const taken = {
                  ...row,
                  claimedUntil: at + Duration.toMillis(lease),
                  claimId,
                  updatedAt: at,
                  sendStartedAt: null,
                  attempts: row.attempts + (unconfirmed ? 1 : 0),
                  inDoubt: row.inDoubt || unconfirmed
                }
                replace(taken)
                const entry = entries.get(row.deviceId)
                return {
                  id: row.id,
                  claimId,
                  eventKey: row.eventKey,
                  userId: row.userId,
                  deviceId: row.deviceId,
                  templateCode: row.templateCode,
                  title: row.title,
                  body: row.body,
                  attempts: taken.attempts,
                  inDoubt: taken.inDoubt,
                  device:
                    entry === undefined
                      ? null
                      : {
                          deviceId: row.deviceId,
                          userId: entry.userId,
                          tokenType: entry.tokenType,
                          token: Redacted.make(entry.token),
                          active: entry.active
                        }
                }
              })
            })
          ),
        markSending: (claimId, ids) =>
          db.atomically(
            Effect.gen(function* () {
              const at = yield* now
              for (const id of ids) {
                const row = table.get(id)
                if (row !== undefined && row.claimId === claimId) replace({ ...row, sendStartedAt: at })
              }
            })
          ),
        record: (notification, outcome: AttemptOutcome, facts: AttemptFacts) =>
          db.atomically(
            Effect.gen(function* () {
              const at = yield* now
              const row = table.get(notification.id)
              if (row === undefined || row.claimId !== notification.claimId) return
              const base = {
                ...row,
                claimedUntil: null,
                claimId: null,
                updatedAt: at,
                sendStartedAt: null,
                inDoubt: row.inDoubt || facts.inDoubt,
                resends: row.resends + (facts.pushed && notification.inDoubt ? 1 : 0)
              }
              switch (outcome._tag) {
                case "Sent":
                  return replace({
                    ...base,
                    status: "sent",
                    attempts: row.attempts + 1,
                    providerMessageId: outcome.providerMessageId,
                    lastError: null
                  })
                case "Retry":
                  return replace({
                    ...base,
                    attempts: row.attempts + 1,
                    nextAttemptAt: at + outcome.delayMillis,
                    lastError: outcome.error
                  })
                case "Failed":
                  return replace({ ...base, status: "failed", attempts: row.attempts + 1, lastError: outcome.error })
                case "Cancelled":
                  return replace({
                    ...base,
                    status: "cancelled",
                    attempts: row.attempts + (outcome.attempted ? 1 : 0),
                    lastError: outcome.reason
                  })
              }
            })
          ),
        release: (claimId) =>
          db.atomically(
            Effect.sync(() => {
              for (const row of table.values()) {
                if (row.claimId === claimId && row.sendStartedAt === null) {
                  replace({ ...row, claimId: null, claimedUntil: null })
                }
              }
            })
          ),
        cancelForDevice: (deviceId, reason) =>
          db.atomically(
            Effect.gen(function* () {
              const at = yield* now
              let cancelled = 0
              for (const row of table.values()) {
                if (row.deviceId !== deviceId || row.status !== "pending" || row.claimId !== null) continue
                cancelled += 1
                replace({ ...row, status: "cancelled", lastError: reason, updatedAt: at })
              }
              return cancelled
            })
          ),
        list: ({ status, limit, offset }) =>
          db.atomically(
            Effect.sync(() =>
              [...table.values()]
                .filter((row) => status === undefined || row.status === status)
                .sort((a, b) => b.createdAt - a.createdAt || b.sequence - a.sequence)
                .slice(offset, offset + limit)
                .map(viewOf)
            )
          ),
        find: (id) => db.atomically(Effect.sync(() => Option.map(Option.fromUndefinedOr(table.get(id)), viewOf))),
        requeue: (id, status: RetryableStatus) =>
          db.atomically(
            Effect.gen(function* () {
              const at = yield* now
              const row = table.get(id)
              if (row === undefined || row.status !== status) return Option.none()
              const requeued = requeue(row, at)
              replace(requeued)
              return Option.some(viewOf(requeued))
            })
          ),
        requeueAll: (status) =>
          db.atomically(
            Effect.gen(function* () {
              const at = yield* now
              const ids: Array<string> = []
              for (const row of [...table.values()].sort((a, b) => a.sequence - b.sequence)) {
                if (row.status !== status) continue
                ids.push(row.id)
                replace(requeue(row, at))
              }
              return ids
            })
          ),
        stats: db.atomically(
          Effect.gen(function* () {
            const at = yield* now
            const pending = [...table.values()].filter((row) => row.status === "pending")
            const due = pending.filter((row) => row.nextAttemptAt <= at).map((row) => row.nextAttemptAt)
            return {
              depth: pending.length,
              oldestDueSeconds: due.length === 0 ? 0 : (at - Math.min(...due)) / 1000
            }
          })
        )
      })

      return Context.make(NotificationOutbox, outbox).pipe(
        Context.add(NotificationsMemory, {
          rows: db.atomically(Effect.sync(() => [...table.values()].sort((a, b) => a.sequence - b.sequence)))
        }),
        Context.add(Devices, devices)
      )
    })
  )

/** The outbox and devices in memory on a `MemoryDatabase` of their own. */
export const layerMemory = layerMemoryOutbox.pipe(Layer.provideMerge(layerMemoryDatabase))
