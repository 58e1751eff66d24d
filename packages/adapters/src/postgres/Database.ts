import { Layer } from "effect"
import { runMigrations } from "./Migrations.ts"
import * as PostgresClient from "./PostgresClient.ts"

/** The configured database, migrated before anything uses it (the server and every CLI command). */
export const layerConfig = Layer.effectDiscard(runMigrations).pipe(Layer.provideMerge(PostgresClient.layerConfig))
