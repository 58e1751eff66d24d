import { Schema } from "effect"
import { DeviceId } from "./Model.ts"

/** No active device of this user has this id: unknown, removed, deactivated, or another user's. */
export class DeviceNotFound extends Schema.TaggedError<DeviceNotFound>()("DeviceNotFound", {
  deviceId: DeviceId
}) {
  override get message(): string {
    return "Device not found"
  }
}

/**
 * The user already has `limit` active devices (`MAX_ACTIVE_DEVICES`) and this registration would
 * add one: a new token (a removed one registered again among them), or a token moving from another user. The same
 * active token again is never refused.
 */
export class DeviceLimitReached extends Schema.TaggedError<DeviceLimitReached>()("DeviceLimitReached", {
  limit: Schema.Int
}) {
  override get message(): string {
    return `A user may register at most ${this.limit} devices; remove one first`
  }
}
