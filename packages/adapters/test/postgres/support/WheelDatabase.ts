import * as SpinRepositoryPg from "@payments-gaming/adapters/postgres/SpinRepository"
import { TestDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import * as Layers from "@payments-gaming/composition/Layers"
import { SpinRepository, type WheelRandom } from "@payments-gaming/domain/wheel"
import { ConfigProvider, DateTime, Effect, Layer } from "effect"

/** A fresh database with every migration, the ledger (0002) and the wheel (0006) among them. */
export const WheelDatabase = TestDatabase

/**
 * The PostgreSQL spin store, its round check moved to the service's clock: a spin is recorded only
 * while the database's `now()` is inside its round's bounds, and these tests pin the service's clock
 * (TestClock) to days long past, so each bounds are shifted by how far the real clock is ahead of
 * the service's. The check is the real statement's; only the instant it compares is the test's.
 * (`SpinAndWinPostgres.test.ts` checks the statement against the real clock, unshifted.)
 */
export const layerSpinsOnServiceClock = Layer.effect(
  SpinRepository,
  Effect.gen(function* () {
    const real = yield* SpinRepositoryPg.make
    return SpinRepository.of({
      ...real,
      // The service's clock at the spin is the spin's own time (`createdAt`, read from the service's
      // clock as it drew): the cause is made with no effect to read a clock with.
      spun: (spin, open) => {
        const shift = Date.now() - DateTime.toEpochMillis(spin.createdAt)
        return real.spun(spin, { startMillis: open.startMillis + shift, endMillis: open.endMillis + shift })
      }
    })
  })
)

/**
 * The service as the server wires it, with the given randomness, NGN and Africa/Lagos; every port,
 * the ledger and the SQL client stay reachable for assertions. Its spin store checks rounds against
 * the service's clock (`layerSpinsOnServiceClock`).
 */
export const wheelOnPostgres = (random: Layer.Layer<WheelRandom>) =>
  Layers.spinAndWinWith(random, layerSpinsOnServiceClock).pipe(
    Layer.provideMerge(Layers.Ledger),
    Layer.provideMerge(WheelDatabase),
    Layer.provide(
      ConfigProvider.layer(ConfigProvider.fromUnknown({ DEFAULT_CURRENCY: "NGN", WHEEL_TIMEZONE: "Africa/Lagos" }))
    )
  )
