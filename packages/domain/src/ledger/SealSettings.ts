import { Context, Duration, Layer } from "effect"

export interface SealSettingsShape {
  /** `LEDGER_SEALER`: whether this instance seals. Every instance may; one seals at a time. */
  readonly enabled: boolean
  /** `LEDGER_SEAL_INTERVAL`: the pause between two rounds of sealing. */
  readonly interval: Duration.Duration
}

export const DEFAULT_SEAL_SETTINGS: SealSettingsShape = { enabled: true, interval: Duration.seconds(5) }

/** The sealer's configuration, read at the edge (`layerConfig` in the adapters) and handed in here. */
export class SealSettings extends Context.Service<SealSettings, SealSettingsShape>()(
  "@payments-gaming/domain/ledger/SealSettings"
) {
  static readonly layer = (settings: SealSettingsShape): Layer.Layer<SealSettings> =>
    Layer.succeed(SealSettings, SealSettings.of(settings))
}
