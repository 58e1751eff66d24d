import { Context, Duration, Layer } from "effect"
import { type BackoffPolicy, DEFAULT_BACKOFF } from "./Backoff.ts"

export interface NotificationSettingsShape {
  /** `NOTIFICATIONS_WORKER`: whether this instance delivers. Every instance may; claims keep them apart. */
  readonly workerEnabled: boolean
  /** `NOTIFICATIONS_BATCH_SIZE`: rows claimed per poll. */
  readonly batchSize: number
  /** How long a claim holds its rows: longer than a batch's sends can take (each is cut at 10 s). */
  readonly lease: Duration.Duration
  /** The pause between polls that found nothing to do. */
  readonly pollInterval: Duration.Duration
  /** Backoff of retryable failures; `maxAttempts` is `NOTIFICATIONS_MAX_ATTEMPTS`. */
  readonly backoff: BackoffPolicy
}

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettingsShape = {
  workerEnabled: true,
  batchSize: 20,
  lease: Duration.seconds(60),
  pollInterval: Duration.seconds(1),
  backoff: DEFAULT_BACKOFF
}

/** The delivery's configuration, read at the edge (`layerConfig` in the adapters) and handed in here. */
export class NotificationSettings extends Context.Service<NotificationSettings, NotificationSettingsShape>()(
  "@payments-gaming/domain/notifications/NotificationSettings"
) {
  static readonly layer = (settings: NotificationSettingsShape): Layer.Layer<NotificationSettings> =>
    Layer.succeed(NotificationSettings, NotificationSettings.of(settings))
}
