import { DateTime, Effect, Layer, Redacted, Ref } from "effect"
import type { UserId } from "../auth/Model.ts"
import { truncateToSeconds } from "../cards/Model.ts"
import { logRegistered } from "./DeviceLog.ts"
import { type DeviceRegistered, Devices } from "./Devices.ts"
import { DeviceLimitReached, DeviceNotFound } from "./Errors.ts"
import {
  type DeviceId,
  type DeviceRegistration,
  type DeviceView,
  MAX_ACTIVE_DEVICES,
  MAX_INACTIVE_DEVICES,
  REMOVED_BY_USER,
  type TokenType,
  tokenLast8
} from "./Model.ts"

/** One row of the in-memory `user_devices`. */
interface StoredDevice {
  readonly deviceId: DeviceId
  readonly userId: UserId
  readonly tokenType: TokenType
  /** Erased (null) once the device is inactive, as the SQL adapter does. */
  readonly token: string | null
  readonly platform: string | null
  readonly active: boolean
  readonly createdAt: DateTime.Utc
  readonly deactivationReason: string | null
  /** Order of deactivation, for pruning the oldest inactive rows. */
  readonly deactivatedSequence: number
}

interface Store {
  readonly issued: number
  readonly rows: ReadonlyArray<StoredDevice>
}

const deviceIdOf = (sequence: number) =>
  `00000000-0000-4000-8000-${sequence.toString(16).padStart(12, "0")}` as DeviceId

const viewOf = (row: StoredDevice): DeviceView => ({
  deviceId: row.deviceId,
  tokenType: row.tokenType,
  tokenLast8: tokenLast8(row.token ?? ""),
  platform: row.platform,
  createdAt: row.createdAt
})

/**
 * An in-memory `Devices` with the SQL adapter's rules (one row per token, moves, the limit, tokens
 * erased at deactivation and old inactive rows pruned).
 */
export const makeMemoryDevices: Effect.Effect<Devices["Service"]> = Effect.gen(function* () {
  const store = yield* Ref.make<Store>({ issued: 0, rows: [] })

  const register = Effect.fn("Devices.register")(function* (userId: UserId, registration: DeviceRegistration) {
    const now = truncateToSeconds(yield* DateTime.now)
    const token = Redacted.value(registration.token)
    const result = yield* Ref.modify(store, (current): readonly [DeviceRegistered | DeviceLimitReached, Store] => {
      const index = current.rows.findIndex((row) => row.tokenType === registration.tokenType && row.token === token)
      const found = current.rows[index]
      // Anything but the same active token again adds an active device to the user: checked here,
      // inside the one `Ref.modify`, so racing registrations cannot both pass at the last slot.
      const again = found?.active === true && found.userId === userId
      const active = current.rows.filter((row) => row.userId === userId && row.active).length
      if (!again && active >= MAX_ACTIVE_DEVICES) {
        return [new DeviceLimitReached({ limit: MAX_ACTIVE_DEVICES }), current]
      }
      if (found === undefined) {
        const row: StoredDevice = {
          deviceId: deviceIdOf(current.issued + 1),
          userId,
          tokenType: registration.tokenType,
          token,
          platform: registration.platform,
          active: true,
          createdAt: now,
          deactivationReason: null,
          deactivatedSequence: 0
        }
        return [
          { device: viewOf(row), created: true, movedFrom: null },
          { issued: current.issued + 1, rows: [...current.rows, row] }
        ]
      }
      const row: StoredDevice = {
        ...found,
        userId,
        platform: registration.platform,
        active: true,
        createdAt: again ? found.createdAt : now,
        deactivationReason: null
      }
      const registered: DeviceRegistered = {
        device: viewOf(row),
        created: !again,
        movedFrom: found.userId === userId ? null : found.userId
      }
      return [registered, { ...current, rows: current.rows.with(index, row) }]
    })
    if (result instanceof DeviceLimitReached) return yield* result
    yield* logRegistered(userId, result)
    return result
  })

  const list = (userId: UserId) =>
    Effect.map(Ref.get(store), ({ rows }) => rows.filter((row) => row.userId === userId && row.active).map(viewOf))

  const deactivateWhere = (matches: (row: StoredDevice) => boolean, reason: string) =>
    Ref.modify(store, (current): readonly [boolean, Store] => {
      const index = current.rows.findIndex((row) => row.active && matches(row))
      const found = current.rows[index]
      if (found === undefined) return [false, current]
      const sequence = current.issued + 1
      const deactivated = {
        ...found,
        token: null,
        active: false,
        deactivationReason: reason,
        deactivatedSequence: sequence
      }
      const rows = current.rows.with(index, deactivated)
      // The user's newest MAX_INACTIVE_DEVICES inactive rows stay; older ones go.
      const kept = new Set(
        rows
          .filter((row) => row.userId === found.userId && !row.active)
          .sort((a, b) => b.deactivatedSequence - a.deactivatedSequence)
          .slice(0, MAX_INACTIVE_DEVICES)
      )
      const pruned = rows.filter((row) => row.active || row.userId !== found.userId || kept.has(row))
      return [true, { issued: sequence, rows: pruned }]
    })

  const remove = Effect.fn("Devices.remove")(function* (userId: UserId, deviceId: DeviceId) {
    const removed = yield* deactivateWhere((row) => row.userId === userId && row.deviceId === deviceId, REMOVED_BY_USER)
    if (!removed) return yield* new DeviceNotFound({ deviceId })
  })

  const deactivate = (deviceId: DeviceId, reason: string) =>
    Effect.asVoid(deactivateWhere((row) => row.deviceId === deviceId, reason))

  return Devices.of({ register, list, remove, deactivate })
})

/** A fresh, empty in-memory `Devices` per build. */
export const layerMemoryDevices: Layer.Layer<Devices> = Layer.effect(Devices, makeMemoryDevices)

/** Every port of the devices area in memory. */
export const layerMemory: Layer.Layer<Devices> = layerMemoryDevices
