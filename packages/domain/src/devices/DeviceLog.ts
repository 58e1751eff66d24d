import { Effect } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { DeviceRegistered } from "./Devices.ts"

/**
 * The log lines of a registration, said once for every `Devices` implementation. They name users
 * and the device id, never the token (nor its last 8 characters): a token lets anyone push to the device.
 */
export const logRegistered = (userId: UserId, { device, created, movedFrom }: DeviceRegistered) =>
  movedFrom !== null
    ? Effect.logInfo("Device moved to another user").pipe(
        Effect.annotateLogs({ deviceId: device.deviceId, fromUserId: movedFrom, toUserId: userId })
      )
    : created
      ? Effect.logDebug("Device registered").pipe(
          Effect.annotateLogs({ deviceId: device.deviceId, tokenType: device.tokenType })
        )
      : Effect.void
