import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, Option, type Redacted } from "effect"
import { startEmbeddedPostgres } from "./EmbeddedPostgres.ts"

export interface PostgresOptions {
  /** A PostgreSQL URL; `undefined` starts the embedded database instead. */
  readonly url: Redacted.Redacted | undefined
  /** Where the embedded database keeps its files; `undefined` keeps it in memory. */
  readonly dataDir: string | undefined
  readonly maxConnections?: number | undefined
}

/**
 * The one database client of the service: `@effect/sql-pg` on `DATABASE_URL`, or on an embedded
 * PGlite served over a loopback socket. One driver, one code path.
 */
export const layer = (options: PostgresOptions) =>
  Layer.unwrap(
    Effect.gen(function* () {
      if (options.url !== undefined) {
        return PgClient.layer({
          url: options.url,
          maxConnections: options.maxConnections ?? 10,
          applicationName: "payments-gaming"
        })
      }
      const embedded = yield* startEmbeddedPostgres(options.dataDir)
      yield* Effect.logInfo(`Embedded PostgreSQL (PGlite) in ${embedded.dataDir} on ${embedded.host}:${embedded.port}`)
      // PGlite runs one session: a second pooled connection would interleave two transactions on it.
      return PgClient.layer({
        host: embedded.host,
        port: embedded.port,
        username: "postgres",
        database: "postgres",
        maxConnections: 1,
        applicationName: "payments-gaming"
      })
    })
  )

export const layerConfig = Layer.unwrap(
  Effect.gen(function* () {
    const url = yield* Config.Redacted("DATABASE_URL").pipe(Config.option)
    const dataDir = yield* Config.String("DATA_DIR").pipe(Config.withDefault("./.data"))
    const maxConnections = yield* Config.Int("DATABASE_MAX_CONNECTIONS").pipe(Config.withDefault(10))
    return layer({ url: Option.getOrUndefined(url), dataDir, maxConnections })
  })
)
