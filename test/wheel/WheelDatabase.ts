import { SpinAndWinService, type WheelRandom, WheelSettings } from "@payments-gaming/domain/wheel"
import { DateTime, Layer } from "effect"
import * as LedgerPostgres from "../../packages/adapters/src/postgres/LedgerPostgres.ts"
import * as LedgerUnitOfWork from "../../packages/adapters/src/postgres/LedgerUnitOfWork.ts"
import * as SpinRepository from "../../packages/adapters/src/postgres/SpinRepository.ts"
import * as WheelRepository from "../../packages/adapters/src/postgres/WheelRepository.ts"
import * as WheelRoundSeeds from "../../packages/adapters/src/postgres/WheelRoundSeeds.ts"
import * as NodeSeedCrypto from "../../packages/adapters/src/wheel/NodeSeedCrypto.ts"
import { TestDatabase } from "../support/TestDatabase.ts"

/** A fresh database with every migration, the ledger (0002) and the wheel (0006) among them. */
export const WheelDatabase = TestDatabase

/**
 * The service on the PostgreSQL repositories, ledger and unit of work, with the given randomness,
 * NGN and Africa/Lagos; every port and the SQL client stay reachable for assertions.
 */
export const wheelOnPostgres = (random: Layer.Layer<WheelRandom>) =>
  SpinAndWinService.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        WheelRepository.layer,
        SpinRepository.layer,
        WheelRoundSeeds.layer,
        LedgerPostgres.layer,
        LedgerUnitOfWork.layer,
        NodeSeedCrypto.layer,
        random,
        WheelSettings.layer({ currency: "NGN", timeZone: DateTime.zoneMakeNamedUnsafe("Africa/Lagos") })
      )
    ),
    Layer.provideMerge(WheelDatabase)
  )
