import { Context, type DateTime, Layer } from "effect"
import type { Currency } from "../money/index.ts"

export interface WheelSettingsShape {
  /** `DEFAULT_CURRENCY`: the currency of cash prizes and of the default wheel's labels. */
  readonly currency: Currency
  /** `WHEEL_TIMEZONE`: rounds are calendar days in this zone. */
  readonly timeZone: DateTime.TimeZone
}

/** The wheel's configuration, read at the edge (`layerConfig` in the adapters) and handed in here. */
export class WheelSettings extends Context.Service<WheelSettings, WheelSettingsShape>()(
  "@payments-gaming/domain/wheel/WheelSettings"
) {
  static readonly layer = (settings: WheelSettingsShape): Layer.Layer<WheelSettings> =>
    Layer.succeed(WheelSettings, WheelSettings.of(settings))
}
