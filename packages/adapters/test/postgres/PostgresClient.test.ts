import { Socket } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Cause, ConfigProvider, Effect, Exit, Fiber, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { inject } from "vitest"
import { DatabaseHealth, layer as databaseHealthLayer } from "../../src/postgres/DatabaseHealth.ts"
import { isConnectionLost, isDatabaseUnavailable } from "../../src/postgres/DatabaseUnavailable.ts"
import { runMigrations } from "../../src/postgres/Migrations.ts"
import * as PostgresClient from "../../src/postgres/PostgresClient.ts"
import { clientFor, freshDatabaseUrl } from "../support/TestDatabase.ts"

/**
 * The backends that served `count` statements sent at once, after one statement has opened the
 * pool's first connection. Each statement sleeps, so none finishes before the last is sent.
 */
const backendsOf = (
  options: { readonly maxConnections: number; readonly statementsPerConnection?: number },
  client: (url: string) => Layer.Layer<SqlClient.SqlClient, unknown> = (url) =>
    PostgresClient.layer({ url: Redacted.make(url), dataDir: undefined, ...options })
) =>
  Effect.gen(function* () {
    const url = yield* freshDatabaseUrl
    return yield* Effect.provide(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`SELECT 1`
        const rows = yield* Effect.all(
          Array.from({ length: 8 }, () => sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`),
          { concurrency: "unbounded" }
        )
        return new Set(rows.map(([row]) => row!.pid)).size
      }),
      client(url)
    )
  })

/**
 * A pipelined client (and the readiness probe on it) on a fresh database with a table `held` of one
 * row, with `body` run on it and a second client (`direct`) beside it.
 */
const onPipelined = <A, E>(
  body: (sql: SqlClient.SqlClient, direct: SqlClient.SqlClient) => Effect.Effect<A, E, DatabaseHealth>,
  options: Partial<PostgresClient.PostgresOptions> = {}
) =>
  Effect.gen(function* () {
    const url = yield* freshDatabaseUrl
    const direct = yield* clientFor(url)
    yield* direct`CREATE TABLE held (id int PRIMARY KEY)`
    yield* direct`INSERT INTO held VALUES (1)`
    return yield* Effect.provide(
      Effect.flatMap(SqlClient.SqlClient, (sql) => body(sql, direct)),
      databaseHealthLayer.pipe(
        Layer.provideMerge(
          PostgresClient.layer({ url: Redacted.make(url), dataDir: undefined, maxConnections: 4, ...options })
        )
      )
    )
  })

/**
 * The number of `write`s to sockets connected to the test's PostgreSQL, counted until the scope
 * closes. The statements' bytes go out through `Socket.prototype.write`, one call per batch.
 */
const writesToDatabase = Effect.acquireRelease(
  Effect.sync(() => {
    const port = Number(new URL(inject("databaseAdminUrl")).port || 5432)
    const counted = { writes: 0 }
    const write = Socket.prototype.write
    Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket["write"]>) {
      if (this.remotePort === port) counted.writes++
      return write.apply(this, args)
    } as typeof write
    return { counted, write }
  }),
  ({ write }) =>
    Effect.sync(() => {
      Socket.prototype.write = write
    })
).pipe(Effect.map(({ counted }) => counted))

/** The error a failed exit carries (a failure or a defect). */
const errorOf = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) ? (Cause.squash(exit.cause) as unknown) : undefined

// DATABASE_URL only: in the suite's PGlite mode (no server reachable) there is no URL to connect to.
/**
 * `onPipelined` with row 1 of `held` locked by `direct` (FOR UPDATE, in a transaction) while `body`
 * runs: a statement of the pool's that touches the row waits on it.
 */
const whileRowHeld = <A, E>(body: (sql: SqlClient.SqlClient) => Effect.Effect<A, E, DatabaseHealth>) =>
  onPipelined((sql, direct) =>
    direct.withTransaction(Effect.andThen(direct`SELECT id FROM held WHERE id = 1 FOR UPDATE`, body(sql)))
  )

describe.runIf(inject("databaseMode") === "postgres")("PostgresClient on DATABASE_URL", () => {
  it.effect("pipelines concurrent statements on one connection, up to the statements per connection", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* backendsOf({ maxConnections: 4, statementsPerConnection: 8 }), 1)
      // Four at a time per connection: the pool opens a second one for the other four.
      assert.strictEqual(yield* backendsOf({ maxConnections: 4, statementsPerConnection: 4 }), 2)
    })
  )

  it.effect("pipelines by default (8 per connection), and sends one statement at a time at 1", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* backendsOf({ maxConnections: 4 }), 1)
      assert.strictEqual(yield* backendsOf({ maxConnections: 4, statementsPerConnection: 1 }), 4)
    })
  )

  it.effect("a CLI command's client does not pipeline, whatever DATABASE_STATEMENTS_PER_CONNECTION says", () =>
    Effect.gen(function* () {
      const fromEnvironment = (layer: typeof PostgresClient.layerConfig) => (url: string) =>
        layer.pipe(
          Layer.provide(
            ConfigProvider.layer(
              ConfigProvider.fromUnknown({
                DATABASE_URL: url,
                DATABASE_MAX_CONNECTIONS: "4",
                DATABASE_STATEMENTS_PER_CONNECTION: "8"
              })
            )
          )
        )
      assert.strictEqual(yield* backendsOf({ maxConnections: 4 }, fromEnvironment(PostgresClient.layerConfig)), 1)
      assert.strictEqual(
        yield* backendsOf({ maxConnections: 4 }, fromEnvironment(PostgresClient.layerCommandConfig)),
        4
      )
    })
  )

  it.live(
    "a pipelined statement waiting on a lock gives up after lock_timeout, and the ones behind it run",
    () =>
      whileRowHeld((sql) =>
        Effect.gen(function* () {
          const started = Date.now()
          const waiting = yield* Effect.forkChild(Effect.exit(sql`UPDATE held SET id = 1 WHERE id = 1`))
          yield* Effect.sleep("50 millis")
          // Queued behind the waiting statement on the pool's one connection so far.
          const [behind] = yield* sql<{ answer: number }>`SELECT 41 + 1 AS answer`
          const exit = yield* Fiber.join(waiting)
          const seconds = (Date.now() - started) / 1000
          assert.strictEqual(behind?.answer, 42)
          const error = errorOf(exit) as { reason?: { _tag?: string } } | undefined
          assert.strictEqual(error?.reason?._tag, "LockTimeoutError", String(error))
          // 2 s (PIPELINED_SESSION), well before the 15 s request deadline; answered 503, not retried.
          assert.isAtLeast(seconds, 1.9)
          assert.isBelow(seconds, 10)
          assert.isTrue(isDatabaseUnavailable(error))
          assert.isFalse(isConnectionLost(error))
        })
      ),
    20_000
  )

  it.live(
    "readiness answers at once while pipelined statements wait on a held row",
    () =>
      whileRowHeld((sql) =>
        Effect.gen(function* () {
          // Three statements queued on the pool's connection behind the held row: 2 s each.
          const waiting = yield* Effect.forkChild(
            Effect.all(
              [1, 2, 3].map(() => Effect.exit(sql`UPDATE held SET id = 1 WHERE id = 1`)),
              { concurrency: "unbounded" }
            )
          )
          yield* Effect.sleep("100 millis")
          const started = Date.now()
          const answered = yield* (yield* DatabaseHealth).reachable
          const waited = (Date.now() - started) / 1000
          yield* Fiber.join(waiting)
          assert.isTrue(answered, "the database answers: ready")
          assert.isBelow(waited, 1, `answered after ${waited} s`)
        })
      ),
    20_000
  )

  it.live(
    "a pipelined statement that runs past statement_timeout is ended by the server",
    () =>
      onPipelined((sql) =>
        Effect.gen(function* () {
          const exit = yield* Effect.exit(sql`SELECT pg_sleep(11)`)
          const error = errorOf(exit) as { reason?: { _tag?: string } } | undefined
          assert.strictEqual(error?.reason?._tag, "StatementTimeoutError", String(error))
          assert.isTrue(isDatabaseUnavailable(error))
          const [after] = yield* sql<{ ok: number }>`SELECT 1 AS ok`
          assert.strictEqual(after?.ok, 1, "the connection goes on")
        })
      ),
    20_000
  )

  // Under load, one turn of the event loop reads many requests, each in its own I/O callback, and
  // each queues a statement: written one by one, that was a syscall apiece on both ends (patches/
  // @effect+sql-pg, docs/effect-patch.md). Three callbacks of one check phase stand in for them.
  it.live(
    "a turn's first statement is written at once; the statements the rest of the turn queues share one write",
    () =>
      onPipelined(
        (sql) =>
          Effect.gen(function* () {
            yield* sql`SELECT 1`
            const counted = yield* writesToDatabase
            const statement = (n: number) => Effect.runFork(sql<{ n: number }>`SELECT ${n}::int AS n`)
            type Statement = ReturnType<typeof statement>
            const { fibers, beforeSecond } = yield* Effect.promise(
              () =>
                new Promise<{ fibers: Array<Statement>; beforeSecond: number }>((resolve) => {
                  const fibers: Array<Statement> = []
                  setImmediate(() => fibers.push(statement(1)))
                  let beforeSecond = -1
                  setImmediate(() => {
                    beforeSecond = counted.writes
                    fibers.push(statement(2))
                  })
                  setImmediate(() => {
                    fibers.push(statement(3))
                    resolve({ fibers, beforeSecond })
                  })
                })
            )
            const rows = yield* Effect.forEach(fibers, Fiber.join)
            assert.deepStrictEqual(
              rows.map(([row]) => row?.n),
              [1, 2, 3]
            )
            assert.strictEqual(beforeSecond, 1, "the first statement went out before the next callback ran")
            assert.strictEqual(counted.writes, 2, "the second and third shared one write")
          }).pipe(Effect.scoped),
        { maxConnections: 1 }
      )
  )

  // The prepared-statement cache's index by text (patched @effect+sql-pg, docs/effect-patch.md §4).
  // A stale entry in it would not fail a statement: binding to a name the backend closed is retried
  // unnamed. What the backend holds shows it: pg_prepared_statements of the one connection.
  it.effect(
    "a statement is prepared once per text and parameter types, and prepared again under a new name once evicted",
    () =>
      onPipelined(
        (sql) =>
          Effect.gen(function* () {
            const held = (marker: string) =>
              Effect.map(
                sql<{ name: string; types: string }>`SELECT name, parameter_types::text AS types
                  FROM pg_prepared_statements WHERE statement LIKE ${`%${marker}%`} AND statement NOT LIKE '%LIKE%'`,
                (rows) => rows.map((row) => `${row.name} ${row.types}`)
              )
            const probe = (value: number | string) => sql`SELECT ${value} AS cache_probe`
            yield* probe(1)
            yield* probe(2)
            yield* probe("two")
            const first = yield* held("cache_probe")
            assert.strictEqual(first.length, 2, `one name per parameter types: ${first}`)
            // 100 other statements (the cache holds 100) evict both.
            yield* Effect.forEach(
              Array.from({ length: 100 }, (_, n) => n),
              (n) => sql`SELECT ${n} AS ${sql(`filler_${n}`)}`,
              {
                discard: true
              }
            )
            assert.deepStrictEqual(yield* held("cache_probe"), [], "evicted and closed")
            yield* probe(3)
            const again = yield* held("cache_probe")
            assert.strictEqual(again.length, 1, "prepared again, not bound to the closed name")
            assert.notInclude(first, again[0])
            assert.isAtMost((yield* held("filler_")).length, 100)
          }),
        { maxConnections: 1 }
      )
  )

  // What the stall timeout is for: a database host gone without closing its sockets. Stopping the
  // backend process (SIGSTOP) makes exactly that: the socket stays open and nothing answers.
  it.live(
    "a pipelined connection that stops answering is retired at the next checkout; one that answers, idle or busy, is kept",
    () =>
      onPipelined(
        (sql) => {
          let stopped: number | undefined
          return Effect.gen(function* () {
            const pidOf = Effect.map(sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`, ([row]) => row!.pid)
            const first = yield* pidOf
            yield* Effect.sleep("500 millis")
            assert.strictEqual(yield* pidOf, first, "a connection that answers outlives the stall timeout")
            // Busy for 1.2 s without a pause (two staggered streams of 100 ms statements, pipelined
            // on it), answering all along: it is kept, however long the wire stays busy.
            const busy = Effect.forEach(Array.from({ length: 6 }), () =>
              Effect.map(sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.1)`, ([row]) => row!.pid)
            )
            const streams = yield* Effect.all([busy, Effect.andThen(Effect.sleep("50 millis"), busy)], {
              concurrency: 2
            })
            assert.deepStrictEqual(new Set(streams.flat()), new Set([first]), "a busy connection that answers is kept")

            process.kill(first, "SIGSTOP")
            stopped = first
            const stuck = yield* Effect.forkChild(sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`)
            yield* Effect.sleep("500 millis")
            // Unpatched, or with the timeout off, the pool hands out the silent connection again.
            const next = yield* pidOf.pipe(Effect.timeout("5 seconds"))
            assert.notStrictEqual(next, first, "a statement after the silence goes to another connection")

            process.kill(first, "SIGCONT")
            stopped = undefined
            const [finished] = yield* Fiber.join(stuck)
            assert.strictEqual(finished?.pid, first, "the statement on the silent connection was left to finish there")
          }).pipe(
            // Whatever happened above, the backend must not stay stopped (it would hold its locks).
            Effect.ensuring(Effect.sync(() => stopped !== undefined && process.kill(stopped, "SIGCONT")))
          )
        },
        { pipelinedStallTimeout: "300 millis" }
      ),
    15_000
  )

  it.live(
    "migrations on a pipelined client wait for another process's migrations beyond lock_timeout",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabaseUrl
        const direct = yield* clientFor(url)
        const applied = yield* direct.withTransaction(
          Effect.gen(function* () {
            // The lock runMigrations takes (Migrations.ts), held as a second process migrating would.
            yield* direct`SELECT pg_advisory_xact_lock(7340213001)`
            const migrating = yield* Effect.forkChild(
              Effect.provide(
                runMigrations,
                PostgresClient.layer({ url: Redacted.make(url), dataDir: undefined, maxConnections: 2 })
              )
            )
            yield* Effect.sleep("2500 millis")
            return migrating
          })
        )
        const migrations = yield* Fiber.join(applied)
        assert.isAbove(migrations.length, 0, "the migrations ran once the lock was free")
      }),
    20_000
  )

  it.effect("refuses DATABASE_STATEMENTS_PER_CONNECTION below 1 at start, naming it", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(
        Layer.build(PostgresClient.layerConfig).pipe(
          Effect.provide(
            ConfigProvider.layer(
              ConfigProvider.fromUnknown({
                DATABASE_URL: "postgres://127.0.0.1:1/none",
                DATABASE_STATEMENTS_PER_CONNECTION: "0"
              })
            )
          ),
          Effect.scoped
        )
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "DATABASE_STATEMENTS_PER_CONNECTION must be 1")
    })
  )
})
