import { TestDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import type { WheelRandom } from "@payments-gaming/domain/wheel"
import * as Layers from "@payments-gaming/http/Layers"
import { ConfigProvider, Layer } from "effect"

/** A fresh database with every migration, the ledger (0002) and the wheel (0006) among them. */
export const WheelDatabase = TestDatabase

/**
 * The service as the server wires it, with the given randomness, NGN and Africa/Lagos; every port,
 * the ledger and the SQL client stay reachable for assertions.
 */
export const wheelOnPostgres = (random: Layer.Layer<WheelRandom>) =>
  Layers.spinAndWinWith(random).pipe(
    Layer.provideMerge(Layers.Ledger),
    Layer.provideMerge(WheelDatabase),
    Layer.provide(
      ConfigProvider.layer(ConfigProvider.fromUnknown({ DEFAULT_CURRENCY: "NGN", WHEEL_TIMEZONE: "Africa/Lagos" }))
    )
  )
