import { Currency } from "@payments-gaming/domain/money"
import { WheelSettings } from "@payments-gaming/domain/wheel"
import { Config, DateTime, Effect, Layer, Schema } from "effect"

/** `DEFAULT_CURRENCY` (default NGN): one of the supported ISO 4217 codes. */
export const DefaultCurrency = Config.schema(Currency, "DEFAULT_CURRENCY").pipe(Config.withDefault("NGN" as const))

/** `WHEEL_TIMEZONE` (default Africa/Lagos): an IANA zone name the runtime knows. */
export const WheelTimeZone = Config.schema(Schema.TimeZoneNamedFromString, "WHEEL_TIMEZONE").pipe(
  Config.withDefault(DateTime.zoneMakeNamedUnsafe("Africa/Lagos"))
)

/** The wheel's settings from the environment; start-up fails naming an unknown currency or zone. */
export const layerConfig: Layer.Layer<WheelSettings, Config.ConfigError> = Layer.effect(
  WheelSettings,
  Effect.gen(function* () {
    return WheelSettings.of({ currency: yield* DefaultCurrency, timeZone: yield* WheelTimeZone })
  })
)
