import { DEFAULT_SEAL_SETTINGS, SealSettings, type SealSettingsShape } from "@payments-gaming/domain/ledger"
import { Config, ConfigProvider, Duration, Effect, Layer } from "effect"

/**
 * The sealer's settings from the environment: `LEDGER_SEAL_INTERVAL` (an Effect duration, default
 * 5 seconds) and `LEDGER_SEALER` (on/off, true/false; default on). Start-up fails naming a bad value.
 */
export const read: Effect.Effect<SealSettingsShape, Config.ConfigError> = Effect.gen(function* () {
  const enabled = yield* Config.Boolean("LEDGER_SEALER").pipe(Config.withDefault(DEFAULT_SEAL_SETTINGS.enabled))
  const interval = yield* Config.Duration("LEDGER_SEAL_INTERVAL").pipe(
    Config.mapEffect((value) =>
      Duration.isGreaterThan(value, Duration.zero)
        ? Effect.succeed(value)
        : Effect.fail(
            new Config.ConfigError(
              new ConfigProvider.SourceError({ message: "LEDGER_SEAL_INTERVAL must be longer than 0" })
            )
          )
    ),
    Config.withDefault(DEFAULT_SEAL_SETTINGS.interval)
  )
  return { enabled, interval }
})

export const layerConfig: Layer.Layer<SealSettings, Config.ConfigError> = Layer.effect(
  SealSettings,
  Effect.map(read, SealSettings.of)
)
