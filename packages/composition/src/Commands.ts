import * as Database from "@payments-gaming/adapters/postgres/Database"
import { runMigrations } from "@payments-gaming/adapters/postgres/Migrations"
import * as PostgresClient from "@payments-gaming/adapters/postgres/PostgresClient"
import { Effect, Layer } from "effect"
import * as Layers from "./Layers.ts"

// The use cases a CLI command runs on the database itself (DATABASE_URL, or an embedded database
// no service owns), each finished here: on a command's client (no pipelining, one connection's
// worth of work) and migrated first. A command loads this module only when it runs, so --help and
// the commands that go through a running service never load the database or the SDKs.
// Every command also runs with CommandEnvironment.ts, which is light.

const onCommandDatabase = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  layer.pipe(Layer.provide(Database.layerCommandConfig))

/** Webhook events, wallets, statements, virtual accounts and transfers, on the one ledger. */
export const Banking = onCommandDatabase(Layers.Banking.pipe(Layer.provide(Layers.Ledger)))

/** The operators' view of the notification outbox. */
export const Notifications = onCommandDatabase(Layers.Notifications)

/** The sealed ledger's seals, verification and export. A seal setting that does not parse is a defect here. */
export const Seals = onCommandDatabase(Layers.Seals.pipe(Layer.orDie))

/** The debug push through the configured gateways, each attempt recorded. */
export const Push = onCommandDatabase(Layers.Push)

/**
 * Settlement reconciliation: import a report, list, breaks, resolve. A `credit` resolve posts to the
 * one ledger, under the deposit's key, as the service's does.
 */
export const Reconciliation = onCommandDatabase(Layers.Reconciliation.pipe(Layer.provide(Layers.Ledger)))

/** Applies pending migrations; answers the ones it applied, as `[id, name]`. */
export const migrate = runMigrations.pipe(Effect.provide(PostgresClient.layerCommandConfig))
