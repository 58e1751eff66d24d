import { assert, describe, it } from "@effect/vitest"
import { UnitOfWork } from "@payments-gaming/domain/ledger"
import { Cause, Effect, Exit, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { inject } from "vitest"
import { isDatabaseUnavailable } from "../../src/postgres/DatabaseUnavailable.ts"
import * as LedgerUnitOfWork from "../../src/postgres/LedgerUnitOfWork.ts"
import * as PostgresClient from "../../src/postgres/PostgresClient.ts"
import { clientFor, freshDatabaseUrl } from "../support/TestDatabase.ts"

/**
 * The unit of work runs a transaction again only when its connection dropped before COMMIT: each
 * case kills the transaction's own backend with `pg_terminate_backend` from another connection at
 * a chosen moment, and counts how often the body ran and what was committed.
 */
type Killer = Effect.Success<ReturnType<typeof clientFor>>

const withUnitOfWork = <A, E>(
  use: (killer: Killer, uow: UnitOfWork["Service"]) => Effect.Effect<A, E, UnitOfWork | SqlClient.SqlClient>
) =>
  Effect.gen(function* () {
    const url = yield* freshDatabaseUrl
    const killer = yield* clientFor(url)
    const layer = LedgerUnitOfWork.layer.pipe(
      Layer.provideMerge(PostgresClient.layer({ url: Redacted.make(url), dataDir: undefined, maxConnections: 4 }))
    )
    return yield* Effect.provide(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE units (attempt int NOT NULL)`
        return yield* use(killer, yield* UnitOfWork)
      }),
      layer
    )
  })

/** Records one run of a body (NULL breaks the table's NOT NULL: a failure that is no lost connection). */
const record = (attempt: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.orDie(sql`INSERT INTO units (attempt) VALUES (${attempt})`))

const committed = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return (yield* sql<{ attempt: number }>`SELECT attempt FROM units ORDER BY attempt`).map((row) => row.attempt)
})

const ownPid = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
  return row!.pid
})

/** Kills the connection of the transaction running now, from `killer`'s, and gives the kill time to land. */
const killOwnConnection = (killer: Killer) =>
  Effect.gen(function* () {
    yield* Effect.orDie(killer`SELECT pg_terminate_backend(${yield* Effect.orDie(ownPid)})`)
    yield* Effect.sleep("100 millis")
  })

/** The exit of a unit of work whose body fails, which must have run exactly once (no retry). */
const runOnce = <E, R>(uow: UnitOfWork["Service"], body: (attempt: number) => Effect.Effect<void, E, R>) =>
  Effect.gen(function* () {
    let attempts = 0
    const exit = yield* Effect.exit(uow.transaction(Effect.suspend(() => body(++attempts))))
    assert.strictEqual(attempts, 1)
    return exit
  })

const killedDefect = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) &&
  exit.cause.reasons.some((reason) => Cause.isDieReason(reason) && isDatabaseUnavailable(reason.defect))

describe.runIf(inject("databaseMode") === "postgres")("UnitOfWork on a connection that drops", () => {
  // The body records its run, then `afterRecord` cuts the connection of its first run.
  const cases: ReadonlyArray<
    readonly [string, (killer: Killer, attempt: number) => Effect.Effect<void, never, SqlClient.SqlClient>]
  > = [
    [
      "killed between two statements: run again on a fresh connection, committed once",
      (killer, attempt) =>
        Effect.gen(function* () {
          if (attempt === 1) yield* killOwnConnection(killer)
          // On the killed connection this fails with the server's FATAL (57P01).
          yield* Effect.orDie(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`))
        })
    ],
    [
      "killed during a statement: run again, committed once",
      (killer, attempt) =>
        Effect.gen(function* () {
          if (attempt !== 1) return
          const pid = yield* Effect.orDie(ownPid)
          yield* Effect.forkChild(Effect.delay(Effect.orDie(killer`SELECT pg_terminate_backend(${pid})`), "200 millis"))
          // Running when the connection closes: "PgConnection: Connection closed".
          yield* Effect.orDie(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT pg_sleep(2)`))
        })
    ]
  ]
  for (const [title, afterRecord] of cases) {
    it.live(title, () =>
      withUnitOfWork((killer, uow) =>
        Effect.gen(function* () {
          let attempts = 0
          yield* uow.transaction(
            Effect.gen(function* () {
              const attempt = ++attempts
              yield* record(attempt)
              yield* afterRecord(killer, attempt)
            })
          )
          assert.strictEqual(attempts, 2)
          assert.deepStrictEqual(yield* Effect.orDie(committed), [2])
        })
      )
    )
  }

  it.live("killed once the body is done, so its COMMIT fails: not run again (the outcome could be unknown)", () =>
    withUnitOfWork((killer, uow) =>
      Effect.gen(function* () {
        const exit = yield* runOnce(uow, (attempt) =>
          Effect.gen(function* () {
            yield* record(attempt)
            yield* killOwnConnection(killer)
          })
        )
        assert.isTrue(killedDefect(exit), String(exit))
        // Here the kill came before COMMIT was sent, so nothing committed; the unit of work cannot
        // tell that from a COMMIT cut after the server committed, and so does not retry either.
        assert.deepStrictEqual(yield* Effect.orDie(committed), [])
      })
    )
  )

  it.live("a nested unit's lost connection runs the outermost unit again", () =>
    withUnitOfWork((killer, uow) =>
      Effect.gen(function* () {
        let outer = 0
        let inner = 0
        yield* uow.transaction(
          Effect.gen(function* () {
            const attempt = ++outer
            yield* record(attempt)
            yield* uow.transaction(
              Effect.gen(function* () {
                inner++
                if (attempt === 1) yield* killOwnConnection(killer)
                yield* record(attempt * 10)
              })
            )
          })
        )
        assert.deepStrictEqual({ outer, inner }, { outer: 2, inner: 2 })
        assert.deepStrictEqual(yield* Effect.orDie(committed), [2, 20])
      })
    )
  )

  it.live("a failure that is not a lost connection is not run again", () =>
    withUnitOfWork((_, uow) =>
      Effect.gen(function* () {
        const exit = yield* runOnce(uow, () => record(null))
        assert.isTrue(Exit.isFailure(exit))
        assert.isFalse(killedDefect(exit))
      })
    )
  )

  it.live("an idempotent unit whose statement's connection is killed is run again, without a transaction", () =>
    withUnitOfWork((killer, uow) =>
      Effect.gen(function* () {
        let attempts = 0
        yield* uow.idempotent(
          Effect.gen(function* () {
            const attempt = ++attempts
            yield* record(attempt)
            if (attempt !== 1) return
            // The sleeping statement runs on some pooled connection: find it by its text.
            yield* Effect.forkChild(
              Effect.delay(
                Effect.orDie(killer`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                  WHERE query = 'SELECT pg_sleep(2)' AND pid <> pg_backend_pid()`),
                "200 millis"
              )
            )
            yield* Effect.orDie(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe("SELECT pg_sleep(2)")))
          })
        )
        assert.strictEqual(attempts, 2)
        // No transaction: the first run's write stayed, which is why only idempotent work may run so.
        assert.deepStrictEqual(yield* Effect.orDie(committed), [1, 2])
      })
    )
  )

  it.live("an idempotent unit is not run again for a failure that is not a lost connection", () =>
    withUnitOfWork((_, uow) =>
      Effect.gen(function* () {
        let attempts = 0
        const exit = yield* Effect.exit(
          uow.idempotent(
            Effect.suspend(() => {
              attempts++
              return record(null)
            })
          )
        )
        assert.strictEqual(attempts, 1)
        assert.isTrue(Exit.isFailure(exit))
        assert.isFalse(killedDefect(exit))
      })
    )
  )
})
