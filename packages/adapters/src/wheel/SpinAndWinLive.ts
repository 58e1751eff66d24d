import type { Ledger, UnitOfWork } from "@payments-gaming/domain/ledger"
import { SpinAndWinService, type WheelSettings } from "@payments-gaming/domain/wheel"
import { Layer } from "effect"
import type { SqlClient } from "effect/sql"
import * as SpinRepository from "../postgres/SpinRepository.ts"
import * as WheelRepository from "../postgres/WheelRepository.ts"
import * as WheelRoundSeeds from "../postgres/WheelRoundSeeds.ts"
import * as CryptoWheelRandom from "./CryptoWheelRandom.ts"
import * as NodeSeedCrypto from "./NodeSeedCrypto.ts"

/**
 * `SpinAndWinService` on PostgreSQL and `node:crypto`. The ledger and its unit of work come from
 * outside, shared with the rest of the app, so the spin and its prize share one SQL transaction.
 */
export const layer: Layer.Layer<SpinAndWinService, never, SqlClient.SqlClient | WheelSettings | Ledger | UnitOfWork> =
  SpinAndWinService.layer.pipe(
    Layer.provide([
      WheelRepository.layer,
      SpinRepository.layer,
      WheelRoundSeeds.layer,
      CryptoWheelRandom.layer,
      NodeSeedCrypto.layer
    ])
  )
