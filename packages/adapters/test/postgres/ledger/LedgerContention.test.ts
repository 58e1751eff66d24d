import { assert, describe, layer } from "@effect/vitest"
import { TestDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import * as Layers from "@payments-gaming/composition/Layers"
import { Account, Ledger } from "@payments-gaming/domain/ledger"
import { Money } from "@payments-gaming/domain/money"
import { deposit, freshUser } from "@payments-gaming/domain/test/support/ledgerContract"
import { BigDecimal, Deferred, Effect, Fiber, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { inject } from "vitest"

const Live = Layers.Ledger.pipe(Layer.provideMerge(TestDatabase))

/** Of the pool's 10 connections: deposits left open in their transactions, the rest for the others. */
const HELD = 5
const OTHERS = 50

const sessions = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ open: number; waiting: number; ungranted: number }>`
    SELECT count(*) FILTER (WHERE a.state = 'idle in transaction')::int AS open,
      count(*) FILTER (WHERE a.wait_event_type = 'Lock')::int AS waiting,
      (SELECT count(*) FROM pg_locks l JOIN pg_stat_activity s ON s.pid = l.pid
        WHERE s.datname = current_database() AND NOT l.granted)::int AS ungranted
    FROM pg_stat_activity a WHERE a.datname = current_database()`
  return row!
})

// Several sessions at once: the embedded PGlite has one, so this needs PostgreSQL (always in CI).
describe.runIf(inject("databaseMode") === "postgres")("Ledger on PostgreSQL: deposits of different users", () => {
  layer(Live, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("do not queue on the provider settlement account", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const ledger = yield* Ledger
        const settlement = Account.providerSettlement("NGN")
        // The account's row exists from its first posting on; only that first insert is waited for.
        const first = freshUser("first")
        yield* ledger.post(deposit(`dep-${first}`, first, "1"))
        const before = yield* ledger.balance(settlement)
        const release = yield* Deferred.make<void>()

        // Each of these deposits stops inside its own open transaction. With a balance kept on the
        // settlement account's row, the second would wait for the first's commit on that row's
        // lock, and they could never all be open at once.
        const held = yield* Effect.forEach(
          Array.from({ length: HELD }, () => freshUser("held")),
          (user) =>
            Effect.gen(function* () {
              const posted = yield* Deferred.make<void>()
              const fiber = yield* Effect.forkChild(
                sql.withTransaction(
                  Effect.gen(function* () {
                    yield* ledger.post(deposit(`dep-${user}`, user, "10"))
                    yield* Deferred.succeed(posted, undefined)
                    yield* Deferred.await(release)
                  })
                )
              )
              return { user, posted, fiber }
            })
        )

        const others = Array.from({ length: OTHERS }, () => freshUser("other"))
        const whileHeld = yield* Effect.gen(function* () {
          const allPosted = yield* Effect.timeoutOption(
            Effect.forEach(held, ({ posted }) => Deferred.await(posted)),
            "10 seconds"
          )
          assert.isTrue(Option.isSome(allPosted), `${HELD} deposits of different users could not be open together`)
          const open = yield* sessions
          assert.strictEqual(open.open, HELD)
          assert.strictEqual(open.waiting, 0)
          assert.strictEqual(open.ungranted, 0)

          const results = yield* Effect.timeoutOption(
            Effect.forEach(others, (user) => ledger.post(deposit(`dep-${user}`, user, "2.50")), {
              concurrency: "unbounded"
            }),
            "20 seconds"
          )
          assert.isTrue(Option.isSome(results), `${OTHERS} deposits did not commit beside the open ones`)
          assert.isTrue(Option.getOrThrow(results).every((result) => result.created))
          // Committed, not merely posted: visible from another session while the held ones are open.
          for (const user of others) {
            assert.strictEqual(Money.format(yield* ledger.balance(Account.userCash(user, "NGN"))), "2.50")
          }
          return yield* sessions
        }).pipe(Effect.ensuring(Deferred.succeed(release, undefined)))
        assert.strictEqual(whileHeld.open, HELD, "the held transactions were still open throughout")

        yield* Effect.forEach(held, ({ fiber }) => Fiber.join(fiber))
        for (const { user } of held) {
          assert.strictEqual(Money.format(yield* ledger.balance(Account.userCash(user, "NGN"))), "10.00")
        }
        const after = yield* ledger.balance(settlement)
        // 5 × 10.00 + 50 × 2.50, out of the settlement account.
        const moved = BigDecimal.subtract(after.amount, before.amount)
        assert.isTrue(BigDecimal.equals(moved, BigDecimal.fromStringUnsafe("-175")), BigDecimal.format(moved))
        assert.deepStrictEqual(yield* ledger.reconcile, [])
      })
    )
  })
})
