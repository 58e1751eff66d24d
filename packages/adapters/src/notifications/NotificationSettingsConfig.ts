import {
  DEFAULT_NOTIFICATION_SETTINGS,
  NotificationSettings,
  type NotificationSettingsShape
} from "@payments-gaming/domain/notifications"
import { Config, ConfigProvider, Duration, Effect, Layer } from "effect"

const between = (name: string, low: number, high: number) => (value: number) =>
  Number.isInteger(value) && value >= low && value <= high
    ? Effect.succeed(value)
    : Effect.fail(
        new Config.ConfigError(
          new ConfigProvider.SourceError({ message: `${name} must be an integer ${low} to ${high}` })
        )
      )

const positive = (name: string) => (value: Duration.Duration) =>
  Duration.isGreaterThan(value, Duration.zero)
    ? Effect.succeed(value)
    : Effect.fail(new Config.ConfigError(new ConfigProvider.SourceError({ message: `${name} must be longer than 0` })))

/**
 * The delivery's settings from the environment: `NOTIFICATIONS_WORKER` (on/off, true/false; default
 * on), `NOTIFICATIONS_BATCH_SIZE` (1–500, default 20), `NOTIFICATIONS_MAX_ATTEMPTS` (1–100, default
 * 8), `NOTIFICATIONS_LEASE` (default 60 seconds), `NOTIFICATIONS_POLL_INTERVAL` (default 1 second).
 * Start-up fails naming a bad value.
 */
export const read: Effect.Effect<NotificationSettingsShape, Config.ConfigError> = Effect.gen(function* () {
  const defaults = DEFAULT_NOTIFICATION_SETTINGS
  const workerEnabled = yield* Config.Boolean("NOTIFICATIONS_WORKER").pipe(Config.withDefault(defaults.workerEnabled))
  const batchSize = yield* Config.Int("NOTIFICATIONS_BATCH_SIZE").pipe(
    Config.mapEffect(between("NOTIFICATIONS_BATCH_SIZE", 1, 500)),
    Config.withDefault(defaults.batchSize)
  )
  const maxAttempts = yield* Config.Int("NOTIFICATIONS_MAX_ATTEMPTS").pipe(
    Config.mapEffect(between("NOTIFICATIONS_MAX_ATTEMPTS", 1, 100)),
    Config.withDefault(defaults.backoff.maxAttempts)
  )
  const lease = yield* Config.Duration("NOTIFICATIONS_LEASE").pipe(
    Config.mapEffect(positive("NOTIFICATIONS_LEASE")),
    Config.withDefault(defaults.lease)
  )
  const pollInterval = yield* Config.Duration("NOTIFICATIONS_POLL_INTERVAL").pipe(
    Config.mapEffect(positive("NOTIFICATIONS_POLL_INTERVAL")),
    Config.withDefault(defaults.pollInterval)
  )
  return { workerEnabled, batchSize, lease, pollInterval, backoff: { ...defaults.backoff, maxAttempts } }
})

export const layerConfig: Layer.Layer<NotificationSettings, Config.ConfigError> = Layer.effect(
  NotificationSettings,
  Effect.map(read, NotificationSettings.of)
)
