import { Redacted } from "effect"
import type { PushContext, PushMessage, PushResult } from "../push/Model.ts"
import { type BackoffPolicy, retryDelayMillis } from "./Backoff.ts"
import type { AttemptOutcome, ClaimedNotification, DeviceAddress } from "./Model.ts"

/**
 * The push for a claimed row: the rendered title and body, and `data` with the keys spec 2.2 names,
 * `notificationId` (the row's id, one per device) and `templateCode`. Its collapse key is that id
 * too (`pushContextOf`).
 */
export const pushMessageOf = (notification: ClaimedNotification, device: DeviceAddress): PushMessage => ({
  tokenType: device.tokenType,
  token: Redacted.value(device.token),
  title: notification.title,
  body: notification.body,
  data: { notificationId: notification.id, templateCode: notification.templateCode }
})

/** What the push of a claimed row carries beside its message: the row's id as its collapse key. */
export const pushContextOf = (notification: ClaimedNotification): PushContext => ({
  notificationId: notification.id,
  deviceId: notification.deviceId,
  collapseKey: notification.id,
  resend: notification.inDoubt
})

/**
 * A row whose device is gone, inactive or now another user's is never sent: the user removed it, its
 * token died, or its token was registered by someone else (the row's news is not theirs to see).
 */
export const undeliverable = (notification: ClaimedNotification): AttemptOutcome | null => {
  const device = notification.device
  if (device === null) return { _tag: "Cancelled", reason: "device removed", attempted: false }
  if (device.userId !== notification.userId) {
    return { _tag: "Cancelled", reason: "device moved to another user", attempted: false }
  }
  return device.active ? null : { _tag: "Cancelled", reason: "device deactivated", attempted: false }
}

const describe = (result: PushResult) => `${result.errorCode ?? "UNKNOWN"}: ${result.errorMessage ?? ""}`.trim()

/**
 * What one push result does to its row. `attempt` is this attempt's number (1 for the first).
 * - success: sent, keeping the provider's message id;
 * - `shouldDeactivateToken`: the token is dead; the row is cancelled (and the caller deactivates the
 *   device, which stops its other rows);
 * - `retryable`: tried again after `retryDelayMillis`, unless that was the last attempt: then parked;
 * - anything else (a bad payload, no credentials): parked at once, since repeating cannot help; an
 *   operator retries it after fixing the cause.
 */
export const decide = (result: PushResult, attempt: number, policy: BackoffPolicy, random: number): AttemptOutcome => {
  if (result.success) return { _tag: "Sent", providerMessageId: result.providerMessageId ?? "" }
  if (result.shouldDeactivateToken) return { _tag: "Cancelled", reason: describe(result), attempted: true }
  if (result.retryable && attempt < policy.maxAttempts) {
    return { _tag: "Retry", delayMillis: retryDelayMillis(policy, attempt, random), error: describe(result) }
  }
  return {
    _tag: "Failed",
    error: result.retryable ? `${describe(result)} (gave up after ${attempt} attempts)` : describe(result)
  }
}

/** The metric label of an outcome. */
export const outcomeLabel = (outcome: AttemptOutcome): string => {
  switch (outcome._tag) {
    case "Sent":
      return "sent"
    case "Retry":
      return "retry"
    case "Failed":
      return "failed"
    case "Cancelled":
      return outcome.attempted ? "token_deactivated" : "cancelled"
  }
}
