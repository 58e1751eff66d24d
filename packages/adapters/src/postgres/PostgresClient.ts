import { PgClient } from "@effect/sql-pg"
import { Config, ConfigProvider, Context, type Duration, Effect, Layer, Option, type Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import type { SqlClient } from "effect/sql"
import { isProduction } from "../config/NodeEnv.ts"
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
 * concurrent requests (issue 16, docs/benchmarks.md), 8 answered as many requests as 32, and
 * 1.04 to 1.35 times as many as 1, at less CPU per request.
 *
 * What it changes when a statement gets stuck, and what bounds it (`PIPELINED_SESSION`,
 * `PIPELINED_STALL_TIMEOUT`): PostgreSQL runs a connection's statements in order, so one
 * waiting on a lock or running long holds up the statements pipelined behind it, other users'
 * included; and the driver cannot cancel a pipelined statement (the cancel would hit whichever
 * statement is running), so a request cut off by its deadline leaves its statement to run, and a
 * connection that stopped answering is not retired by a timed-out request. With it on, no
 * transaction may wait, while it holds locks, for a statement outside it: that statement could be
 * queued behind one waiting for those locks (the units of work only run their own statements,
 * LedgerUnitOfWork.ts). docs/operations.md §8 says what an operator sees.
 */
export const DEFAULT_STATEMENTS_PER_CONNECTION = 8

/**
 * Session defaults of every pipelined connection, so that the server itself ends a statement that
 * would hold up the ones queued behind it. A lock wait is the likely one: the service's own row
 * locks last one statement or one short transaction (milliseconds; a burst of credits to one user
 * waits in line for well under a second), so 2 s means something else holds the row (an operator's
 * open transaction, a migration). 10 s is far above what the service's statements take (about a
 * millisecond in the benchmarks) and below the 15 s request deadline. Either ends the statement
 * with 55P03 or 57014, answered 503 with `Retry-After` (DatabaseUnavailable.ts). Migrations lift
 * both for their own transaction (Migrations.ts).
 */
export const PIPELINED_SESSION = { lock_timeout: "2s", statement_timeout: "10s" } as const

/**
 * How long a pipelined connection may carry statements without one answer before the pool retires
 * it at its next checkout (the statements already on it are left to finish or fail). A connection
 * that stopped answering (a database host gone without closing its sockets, as in a failover) is
 * otherwise never retired: a request cut off by its deadline cannot cancel a pipelined statement,
 * and TCP keepalive does not probe while a statement awaits its answer, so the kernel takes about
 * 15 minutes to give up on it. A live server answers some statement on the connection within
 * `PIPELINED_SESSION`'s 10 s statement_timeout, so 15 s of silence means it is gone.
 *
 * Until issue 35 every pipelined connection was replaced after 30 s instead, answering or not. A
 * replacement in the requests' path (a new backend to connect and warm while the statements wait)
 * was the open-loop tail's largest stall: at 80 % of the peer's rate a round's p99 reached 342 ms
 * with the 30 s lifetime and at most 138 ms without it (docs/benchmarks.md, "Twelfth session"). Retiring
 * only the silent ones needs a patch of @effect/sql-pg (patches/@effect+sql-pg+4.0.5.patch,
 * docs/effect-patch.md).
 */
export const PIPELINED_STALL_TIMEOUT = "15 seconds"

/**
 * The readiness probe's own connection when the pool pipelines (DatabaseHealth.ts). Through the
 * pool, the probe's `SELECT 1` would be queued behind whatever the connection it is given carries,
 * statements waiting on a lock among them, and a database that answers would be reported
 * unreachable: every instance out of its load balancer because one row is held. One connection,
 * not pipelined, opened by the first probe and replaced by the next one when it dies; the server
 * sees one more connection per instance.
 */
export class ReadinessClient extends Context.Service<ReadinessClient, SqlClient.SqlClient>()(
  "@payments-gaming/adapters/postgres/ReadinessClient"
) {}

export interface PostgresOptions {
  /** A PostgreSQL URL; `undefined` starts the embedded database instead. */
  readonly url: Redacted.Redacted | undefined
  /** Where the embedded database keeps its files; `undefined` keeps it in memory. */
  readonly dataDir: string | undefined
  readonly maxConnections?: number | undefined
  /** See `DEFAULT_STATEMENTS_PER_CONNECTION`; 1 turns pipelining off. */
  readonly statementsPerConnection?: number | undefined
  /** See `PIPELINED_STALL_TIMEOUT` (the default); tests shorten it to watch a silent connection retired. */
  readonly pipelinedStallTimeout?: Duration.Input | undefined
  /** The pool's idle timeout (60 s by default); tests shorten it to show the embedded pool keeps its connection. */
  readonly idleTimeout?: Duration.Input | undefined
  /** How PostgreSQL names the connections (`pg_stat_activity`); the bench's plain reference sets its own. */
  readonly applicationName?: string | undefined
  /** Production on the embedded database is legal (CONTRACT §1) but worth a warning. */
  readonly production?: boolean | undefined
}

/**
 * The one database client of the service: `@effect/sql-pg` on `DATABASE_URL`, or on an embedded
 * PGlite served over a Unix socket private to this user (EmbeddedPostgres.ts). One driver, one code path.
 */
export const layer = (options: PostgresOptions) =>
  Layer.unwrap(
    Effect.gen(function* () {
      if (options.url !== undefined) {
        const statementsPerConnection = options.statementsPerConnection ?? DEFAULT_STATEMENTS_PER_CONNECTION
        const pipelined = statementsPerConnection > 1
        const connection = {
          url: options.url,
          applicationName: options.applicationName ?? "payments-gaming",
          // TCP keepalive notices a peer that vanished without closing the connection (a network
          // partition), so a dead connection is dropped from the pool rather than waited on forever.
          keepAlive: "10 seconds"
        } satisfies PgClient.PgPoolConfig
        const pool = PgClient.layer({
          ...connection,
          maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
          multiplex: pipelined,
          multiplexConcurrency: statementsPerConnection,
          ...(pipelined
            ? {
                startupParameters: PIPELINED_SESSION,
                connectionStallTimeout: options.pipelinedStallTimeout ?? PIPELINED_STALL_TIMEOUT
              }
            : {})
        })
        if (!pipelined) return pool
        const readiness = Layer.effect(ReadinessClient, PgClient.make({ ...connection, maxConnections: 1 })).pipe(
          Layer.provide(Reactivity.layer)
        )
        return Layer.merge(pool, readiness)
      }
      // PGlite is loaded only when it is used: a service on DATABASE_URL does not load it at start-up.
      const { startEmbeddedPostgres } = yield* Effect.promise(() => import("./EmbeddedPostgres.ts"))
      const embedded = yield* startEmbeddedPostgres(options.dataDir)
      if (options.production === true) {
        yield* Effect.logWarning(
          "NODE_ENV=production without DATABASE_URL: running on the embedded database, which only this one process can use. Set DATABASE_URL for more than one instance."
        )
      }
      yield* Effect.logInfo(
        `Embedded PostgreSQL (PGlite) in ${embedded.dataDir} on the Unix socket ${embedded.socketPath} (this user only)`
      )
      // PGlite runs one session: a second pooled connection would interleave two transactions on it.
      // The one connection is opened with the pool and kept for the process's life (`minConnections`:
      // never dropped when idle). The socket server admits one connection, so a connection the pool
      // let go of could be taken by another process, and the service would answer 503 for as long as
      // that process held it (issue 34).
      return Layer.merge(
        PgClient.layer({
          path: embedded.socketPath,
          username: "postgres",
          database: "postgres",
          maxConnections: 1,
          minConnections: 1,
          ...(options.idleTimeout === undefined ? {} : { idleTimeout: options.idleTimeout }),
          applicationName: "payments-gaming"
        }),
        Layer.succeed(HeldDataDirLock, Option.fromUndefinedOr(embedded.lock))
      )
    })
  )

const configured = (use: "service" | "command") =>
  Layer.unwrap(
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
      const production = yield* isProduction
      return layer({
        url: Option.getOrUndefined(url),
        dataDir,
        maxConnections,
        statementsPerConnection: use === "service" ? statementsPerConnection : 1,
        production
      })
    })
  )

/** The service's client, configured from the environment (README's table). */
export const layerConfig = configured("service")

/**
 * A CLI command's client: the same configuration, without pipelining. A command sends its
 * statements one at a time, so there is nothing to pipeline, and a long one (`wallet statement`
 * printing a user's whole history) must not meet the pipelined connections' `statement_timeout`.
 */
export const layerCommandConfig = configured("command")
