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
