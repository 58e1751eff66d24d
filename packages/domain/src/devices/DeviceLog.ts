import { Effect, Metric } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { DeviceRegistered } from "./Devices.ts"

/**
 * Registrations that moved a token from one user to another. Anyone who knows a token can move it
 * with no proof of holding the device (the contract has none to give), and the first user's
 * notifications then stop: each move is a warning and a count, so a spike is seen (issue 34).
 */
export const deviceTokenReassigned = Metric.counter("device_token_reassigned_total", {
  description: "Device tokens registered by a user while another user held them (moved to the new user)"
})

/**
 * The log lines of a registration, said once for every `Devices` implementation. They name users
 * and the device id, never the token (nor its last 8 characters): a token lets anyone push to the
 * device. A move is a warning, counted in `device_token_reassigned_total`.
 */
export const logRegistered = (userId: UserId, { device, created, movedFrom }: DeviceRegistered) =>
  movedFrom !== null
    ? Effect.logWarning("Device token moved to another user").pipe(
        Effect.annotateLogs({ deviceId: device.deviceId, fromUserId: movedFrom, toUserId: userId }),
        Effect.andThen(Metric.update(Metric.withAttributes(deviceTokenReassigned, { tokenType: device.tokenType }), 1))
      )
    : created
      ? Effect.logDebug("Device registered").pipe(
          Effect.annotateLogs({ deviceId: device.deviceId, tokenType: device.tokenType })
        )
      : Effect.void
