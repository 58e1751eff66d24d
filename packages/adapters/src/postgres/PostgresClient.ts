import { PgClient } from "@effect/sql-pg"
import { Config, ConfigProvider, Effect, Layer, Option, type Redacted } from "effect"
import { HeldDataDirLock } from "./DataDirLock.ts"

/**
 * Connections per process on `DATABASE_URL`. At 64 concurrent requests, 20 used about 10 % less CPU
 * per request than 10 on every benchmarked path (fewer requests parked in the pool's queue, whose
 * wake-ups are not free) and answered more; 32 did no better (issue 16, docs/benchmarks.md).
 */
export const DEFAULT_MAX_CONNECTIONS = 20

/**
 * Statements that may share one connection on `DATABASE_URL`. Above 1 the driver pipelines the
 * statements of concurrent requests on a connection (those submitted in the same tick go out in one
 * write, and their results come back in order), and opens another connection only once every open
 * one carries this many; a transaction still has a connection to itself. Side by side at 64
 * concurrent requests (issue 16, docs/benchmarks.md), 32 answered 1.08 to 1.35 times as many
 * requests as 1, and 8 as many as 32.
 *
 * It is off (1) by default because of what it changes when a statement gets stuck. PostgreSQL runs
 * a connection's statements in order, so a statement waiting on a row lock holds up every statement
 * pipelined behind it, requests of other users included, until the lock is released. And the driver
 * cancels no pipelined statement: a request cut off by its deadline leaves its statement queued,
 * frees its place on the connection for another request to queue behind it, and a connection that
 * stopped answering is no longer retired after the deadline (only TCP keepalive ends it). Before
 * this is the default it needs a bound on lock waits and statement time on pipelined connections
 * (`lock_timeout`, `statement_timeout`, answered 503) and a way to retire a connection that stopped
 * answering. With it on, no transaction may wait, while it holds locks, for a statement outside it:
 * that statement could be queued behind one waiting for those locks (the units of work only run
 * their own statements, LedgerUnitOfWork.ts). docs/operations.md §8 says what an operator sees.
 */
export const DEFAULT_STATEMENTS_PER_CONNECTION = 1

export interface PostgresOptions {
  /** A PostgreSQL URL; `undefined` starts the embedded database instead. */
  readonly url: Redacted.Redacted | undefined
  /** Where the embedded database keeps its files; `undefined` keeps it in memory. */
  readonly dataDir: string | undefined
  readonly maxConnections?: number | undefined
  /** See `DEFAULT_STATEMENTS_PER_CONNECTION`; 1 turns pipelining off. */
  readonly statementsPerConnection?: number | undefined
  /** Production on the embedded database is legal (CONTRACT §1) but worth a warning. */
  readonly production?: boolean | undefined
}

/**
 * The one database client of the service: `@effect/sql-pg` on `DATABASE_URL`, or on an embedded
 * PGlite served over a loopback socket. One driver, one code path.
 */
export const layer = (options: PostgresOptions) =>
  Layer.unwrap(
    Effect.gen(function* () {
      if (options.url !== undefined) {
        const statementsPerConnection = options.statementsPerConnection ?? DEFAULT_STATEMENTS_PER_CONNECTION
        return PgClient.layer({
          url: options.url,
          maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
          multiplex: statementsPerConnection > 1,
          multiplexConcurrency: statementsPerConnection,
          applicationName: "payments-gaming",
          // TCP keepalive notices a peer that vanished without closing the connection (a network
          // partition), so a dead connection is dropped from the pool rather than waited on forever.
          keepAlive: "10 seconds"
        })
      }
      // PGlite is loaded only when it is used: a service on DATABASE_URL does not load it at start-up.
      const { startEmbeddedPostgres } = yield* Effect.promise(() => import("./EmbeddedPostgres.ts"))
      const embedded = yield* startEmbeddedPostgres(options.dataDir)
      if (options.production === true) {
        yield* Effect.logWarning(
          "NODE_ENV=production without DATABASE_URL: running on the embedded database, which only this one process can use. Set DATABASE_URL for more than one instance."
        )
      }
      yield* Effect.logInfo(`Embedded PostgreSQL (PGlite) in ${embedded.dataDir} on ${embedded.host}:${embedded.port}`)
      // PGlite runs one session: a second pooled connection would interleave two transactions on it.
      return Layer.merge(
        PgClient.layer({
          host: embedded.host,
          port: embedded.port,
          username: "postgres",
          database: "postgres",
          maxConnections: 1,
          applicationName: "payments-gaming"
        }),
        Layer.succeed(HeldDataDirLock, Option.fromUndefinedOr(embedded.lock))
      )
    })
  )

export const layerConfig = Layer.unwrap(
  Effect.gen(function* () {
    const url = yield* Config.Redacted("DATABASE_URL").pipe(Config.option)
    const dataDir = yield* Config.String("DATA_DIR").pipe(Config.withDefault("./.data"))
    const maxConnections = yield* Config.Int("DATABASE_MAX_CONNECTIONS").pipe(
      Config.withDefault(DEFAULT_MAX_CONNECTIONS)
    )
    const statementsPerConnection = yield* Config.Int("DATABASE_STATEMENTS_PER_CONNECTION").pipe(
      Config.mapEffect((value) =>
        value >= 1
          ? Effect.succeed(value)
          : Effect.fail(
              new Config.ConfigError(
                new ConfigProvider.SourceError({
                  message: "DATABASE_STATEMENTS_PER_CONNECTION must be 1 (no pipelining) or more"
                })
              )
            )
      ),
      Config.withDefault(DEFAULT_STATEMENTS_PER_CONNECTION)
    )
    const production = (yield* Config.String("NODE_ENV").pipe(Config.withDefault(""))) === "production"
    return layer({ url: Option.getOrUndefined(url), dataDir, maxConnections, statementsPerConnection, production })
  })
)
