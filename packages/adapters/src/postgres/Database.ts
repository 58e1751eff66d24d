import { Layer } from "effect"
import { runMigrations } from "./Migrations.ts"
import * as PostgresClient from "./PostgresClient.ts"

/** The configured database, migrated before anything uses it: the server's. */
export const layerConfig = Layer.effectDiscard(runMigrations).pipe(Layer.provideMerge(PostgresClient.layerConfig))

/** The same for a CLI command, on a client that does not pipeline (`PostgresClient.layerCommandConfig`). */
export const layerCommandConfig = Layer.effectDiscard(runMigrations).pipe(
  Layer.provideMerge(PostgresClient.layerCommandConfig)
)
