import { Context, type Effect } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { DeviceLimitReached, DeviceNotFound } from "./Errors.ts"
import type { DeviceId, DeviceRegistration, DeviceView } from "./Model.ts"

/** What `register` did: `created` unless the token was already an active device of this user. */
export interface DeviceRegistered {
  readonly device: DeviceView
  /** False only for the same token again from the same user while it is active (200, not 201). */
  readonly created: boolean
  /** The user the token belonged to (active or not) when it moves to another user; else null. */
  readonly movedFrom: UserId | null
}

/**
 * The push devices of each user, one row per token (`user_devices`): a token belongs to at most one
 * user. Devices are never deleted, only deactivated (by their user, or when a provider says the
 * token is dead), and a deactivated token registered again is active again.
 */
export class Devices extends Context.Service<
  Devices,
  {
    /**
     * Registers `registration.token` for `userId`, atomically however many registrations of one
     * token race: new (a token never seen, or one whose device was removed or deactivated, which
     * erased it), the same again (platform updated), or moved from another user
     * (one warning naming both users and the device, never the token, counted in
     * `device_token_reassigned_total`).
     * `DeviceLimitReached` when it would give the user more than `MAX_ACTIVE_DEVICES` active
     * devices; the limit holds however many registrations of one user race.
     */
    readonly register: (
      userId: UserId,
      registration: DeviceRegistration
    ) => Effect.Effect<DeviceRegistered, DeviceLimitReached>
    /** The user's active devices, oldest first. */
    readonly list: (userId: UserId) => Effect.Effect<ReadonlyArray<DeviceView>>
    /**
     * Deactivates one of the user's active devices, erasing its token and keeping at most
     * `MAX_INACTIVE_DEVICES` inactive devices of the user (the newest); `DeviceNotFound` for any other id.
     */
    readonly remove: (userId: UserId, deviceId: DeviceId) => Effect.Effect<void, DeviceNotFound>
    /**
     * Deactivates a device whatever its user, recording `reason`, as `remove` does (token erased,
     * old inactive devices pruned); a no-op when already inactive or unknown.
     */
    readonly deactivate: (deviceId: DeviceId, reason: string) => Effect.Effect<void>
  }
>()("@payments-gaming/domain/devices/Devices") {}
