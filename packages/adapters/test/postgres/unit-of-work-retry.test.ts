import { assert, describe, it } from "@effect/vitest"
import { UnitOfWork } from "@payments-gaming/domain/ledger"
import { Cause, Effect, Exit, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { inject } from "vitest"
import { isDatabaseUnavailable } from "../../packages/adapters/src/postgres/DatabaseUnavailable.ts"
import * as LedgerUnitOfWork from "../../packages/adapters/src/postgres/LedgerUnitOfWork.ts"
import * as PostgresClient from "../../packages/adapters/src/postgres/PostgresClient.ts"
import { clientFor, freshDatabaseUrl } from "../support/TestDatabase.ts"

/**
 * The unit of work runs a transaction again only when its connection dropped before COMMIT: each
 * case kills the transaction's own backend with `pg_terminate_backend` from another connection at
 * a chosen moment, and counts how often the body ran and what was committed.
 */
const withUnitOfWork = <A, E>(
  use: (killer: Effect.Success<ReturnType<typeof clientFor>>) => Effect.Effect<A, E, UnitOfWork | SqlClient.SqlClient>
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
        return yield* use(killer)
      }),
      layer
    )
  })

const committed = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return (yield* sql<{ attempt: number }>`SELECT attempt FROM units ORDER BY attempt`).map((row) => row.attempt)
})

const ownPid = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
  return row!.pid
})

const killedDefect = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) &&
  exit.cause.reasons.some((reason) => Cause.isDieReason(reason) && isDatabaseUnavailable(reason.defect))

describe.runIf(inject("databaseMode") === "postgres")("UnitOfWork on a connection that drops", () => {
  it.live("killed between two statements: run again on a fresh connection, committed once", () =>
    withUnitOfWork((killer) =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        let attempts = 0
        yield* uow.transaction(
          Effect.gen(function* () {
            const attempt = ++attempts
            yield* Effect.orDie(sql`INSERT INTO units (attempt) VALUES (${attempt})`)
            if (attempt === 1) {
              yield* Effect.orDie(killer`SELECT pg_terminate_backend(${yield* Effect.orDie(ownPid)})`)
              yield* Effect.sleep("100 millis")
            }
            // On the killed connection this fails with the server's FATAL (57P01).
            yield* Effect.orDie(sql`SELECT 1`)
          })
        )
        assert.strictEqual(attempts, 2)
        assert.deepStrictEqual(yield* Effect.orDie(committed), [2])
      })
    )
  )

  it.live("killed during a statement: run again, committed once", () =>
    withUnitOfWork((killer) =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        let attempts = 0
        yield* uow.transaction(
          Effect.gen(function* () {
            const attempt = ++attempts
            yield* Effect.orDie(sql`INSERT INTO units (attempt) VALUES (${attempt})`)
            if (attempt === 1) {
              const pid = yield* Effect.orDie(ownPid)
              yield* Effect.forkChild(
                Effect.delay(Effect.orDie(killer`SELECT pg_terminate_backend(${pid})`), "200 millis")
              )
              // Running when the connection closes: "PgConnection: Connection closed".
              yield* Effect.orDie(sql`SELECT pg_sleep(2)`)
            }
          })
        )
        assert.strictEqual(attempts, 2)
        assert.deepStrictEqual(yield* Effect.orDie(committed), [2])
      })
    )
  )

  it.live("killed once the body is done, so its COMMIT fails: not run again (the outcome could be unknown)", () =>
    withUnitOfWork((killer) =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        let attempts = 0
        const exit = yield* Effect.exit(
          uow.transaction(
            Effect.gen(function* () {
              const attempt = ++attempts
              yield* Effect.orDie(sql`INSERT INTO units (attempt) VALUES (${attempt})`)
              yield* Effect.orDie(killer`SELECT pg_terminate_backend(${yield* Effect.orDie(ownPid)})`)
              yield* Effect.sleep("100 millis")
            })
          )
        )
        assert.strictEqual(attempts, 1)
        assert.isTrue(killedDefect(exit), String(exit))
        // Here the kill came before COMMIT was sent, so nothing committed; the unit of work cannot
        // tell that from a COMMIT cut after the server committed, and so does not retry either.
        assert.deepStrictEqual(yield* Effect.orDie(committed), [])
      })
    )
  )

  it.live("a nested unit's lost connection runs the outermost unit again", () =>
    withUnitOfWork((killer) =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        let outer = 0
        let inner = 0
        yield* uow.transaction(
          Effect.gen(function* () {
            const attempt = ++outer
            yield* Effect.orDie(sql`INSERT INTO units (attempt) VALUES (${attempt})`)
            yield* uow.transaction(
              Effect.gen(function* () {
                inner++
                if (attempt === 1) {
                  yield* Effect.orDie(killer`SELECT pg_terminate_backend(${yield* Effect.orDie(ownPid)})`)
                  yield* Effect.sleep("100 millis")
                }
                yield* Effect.orDie(sql`INSERT INTO units (attempt) VALUES (${attempt * 10})`)
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
    withUnitOfWork(() =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const uow = yield* UnitOfWork
        let attempts = 0
        const exit = yield* Effect.exit(
          uow.transaction(
            Effect.gen(function* () {
              attempts++
              yield* Effect.orDie(sql`INSERT INTO units (attempt) VALUES (NULL)`)
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
