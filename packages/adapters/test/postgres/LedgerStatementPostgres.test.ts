import { writeFileSync } from "node:fs"
import { assert, describe, layer } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import { Ledger, Movements, replayBreaks, StatementIds, StatementService } from "@payments-gaming/domain/ledger"
import { statementContract } from "@payments-gaming/domain/test/support/statementContract"
import { BigDecimal, Deferred, Effect, Fiber, Layer, Redacted, Result } from "effect"
import { SqlClient } from "effect/sql"
import { inject } from "vitest"
import * as StatementIdCipher from "../../src/ledger/StatementIdCipher.ts"
import * as LedgerPostgres from "../../src/postgres/LedgerPostgres.ts"
import * as LedgerStatementPostgres from "../../src/postgres/LedgerStatementPostgres.ts"
import * as LedgerUnitOfWork from "../../src/postgres/LedgerUnitOfWork.ts"
import { TestDatabase } from "../support/TestDatabase.ts"

const StatementOnPostgres = StatementService.layer.pipe(
  Layer.provideMerge(LedgerStatementPostgres.layer),
  Layer.provideMerge(StatementIdCipher.layer(Redacted.make("a statement id key of at least 32 bytes"))),
  Layer.provideMerge(Layer.mergeAll(LedgerPostgres.layer, LedgerUnitOfWork.layer)),
  Layer.provideMerge(TestDatabase)
)

const money = (userId: UserId, reference: string, amount: string) => ({
  reference,
  userId,
  currency: "NGN" as const,
  amount: BigDecimal.fromStringUnsafe(amount)
})

/** PostgreSQL stamps a posting with its transaction's start: real time must pass between two. */
const tick = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 5)))

const POSTINGS = 100_000
const COIN_PRIZES = 1_000

/**
 * One user with POSTINGS cash postings (two deposits of 10.00 for every hold of 2.50, so the balance
 * moves both ways and never goes below zero) and COIN_PRIZES coin prizes among them, written in bulk
 * by SQL as the ledger would have written them: balanced transactions, keys from LedgerKeys, the
 * maintained balances equal to the postings' sums. The ledger's triggers are off for the bulk insert
 * only (session_replication_role, inside the seeding transaction): checking 200,000 rows one by one
 * would take minutes, and `reconcile`-style sums below check the result instead.
 */
const seed = (user: UserId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cash = `user:${user}:cash:NGN`
    const coins = `user:${user}:coins`
    yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SET LOCAL session_replication_role = replica`
        yield* sql`INSERT INTO ledger_accounts (id, unit, owner_user_id, non_negative, balance) VALUES
          (${cash}, 'NGN', ${user}, true, 0), (${coins}, 'COIN', ${user}, true, 0),
          ('system:provider-settlement:NGN', 'NGN', NULL, false, NULL),
          ('system:transfers-in-flight:NGN', 'NGN', NULL, false, NULL),
          ('system:prize-pool:coins', 'COIN', NULL, false, NULL)
          ON CONFLICT (id) DO NOTHING`
        yield* sql`INSERT INTO ledger_transactions (idempotency_key, kind, created_at)
          SELECT CASE WHEN g % ${POSTINGS / COIN_PRIZES} = 0 THEN 'spin-' || ${user} || '-' || g
                      WHEN g % 3 = 0 THEN 'transfer:BULK-' || g || ':hold'
                      ELSE 'virtualaccount.credit:BULK-' || g END,
                 CASE WHEN g % ${POSTINGS / COIN_PRIZES} = 0 THEN 'prize'
                      WHEN g % 3 = 0 THEN 'transfer.hold' ELSE 'deposit' END,
                 timestamptz '2026-01-01T00:00:00Z' + g * interval '1 second'
          FROM generate_series(1, ${POSTINGS}) AS g`
        yield* sql`INSERT INTO ledger_postings (transaction_id, account_id, unit, amount_minor, created_at)
          SELECT t.id, v.account_id, v.unit, v.amount, t.created_at
          FROM ledger_transactions t CROSS JOIN LATERAL (VALUES
            (CASE t.kind WHEN 'prize' THEN ${coins} ELSE ${cash} END,
             CASE t.kind WHEN 'prize' THEN 'COIN' ELSE 'NGN' END,
             CASE t.kind WHEN 'prize' THEN 10 WHEN 'transfer.hold' THEN -250 ELSE 1000 END, 1),
            (CASE t.kind WHEN 'prize' THEN 'system:prize-pool:coins' WHEN 'transfer.hold'
               THEN 'system:transfers-in-flight:NGN' ELSE 'system:provider-settlement:NGN' END,
             CASE t.kind WHEN 'prize' THEN 'COIN' ELSE 'NGN' END,
             CASE t.kind WHEN 'prize' THEN -10 WHEN 'transfer.hold' THEN 250 ELSE -1000 END, 2)
          ) AS v (account_id, unit, amount, position)
          WHERE t.idempotency_key LIKE 'virtualaccount.credit:BULK-%' OR t.idempotency_key LIKE 'transfer:BULK-%'
             OR t.idempotency_key LIKE ${`spin-${user}-%`}
          ORDER BY t.id, v.position`
        yield* sql`UPDATE ledger_accounts a SET balance = (SELECT sum(amount_minor) FROM ledger_postings p WHERE p.account_id = a.id)
          WHERE a.id IN (${cash}, ${coins})`
      })
    )
    // As autovacuum would have by then: statistics, and a visibility map for index-only scans.
    yield* sql`VACUUM (ANALYZE) ledger_postings`
    yield* sql`ANALYZE ledger_accounts`
    yield* sql`ANALYZE ledger_transactions`
    return { cash, coins }
  })

/** The plan of one page, as the adapter runs it. */
const explain = (request: LedgerStatementPostgres.StatementRequest) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{
      "QUERY PLAN": string
    }>`EXPLAIN (ANALYZE, BUFFERS) ${LedgerStatementPostgres.statementQuery(sql, request)}`
    return rows.map((row) => row["QUERY PLAN"]).join("\n")
  })

/** Buffers the whole statement touched: a measure of work, not of time. */
const buffersOf = (plan: string) => {
  const top = /Buffers: shared hit=(\d+)(?: read=(\d+))?/.exec(plan)
  return top === null ? Number.POSITIVE_INFINITY : Number(top[1]) + Number(top[2] ?? 0)
}

/** Every access to ledger_postings walks the statement's index: no sequential scan, no other index. */
const assertIndexOnly = (plan: string, label: string) => {
  assert.notMatch(plan, /Seq Scan on ledger_postings/, `${label}:\n${plan}`)
  const scans = plan.split("\n").filter((line) => / on ledger_postings /.test(line))
  assert.isAbove(scans.length, 0, plan)
  for (const line of scans)
    assert.match(line, /Index (Only )?Scan (Backward )?using ledger_postings_account_id_idx/, `${label}: ${line}`)
}

describe("the wallet statement on PostgreSQL", () => {
  layer(StatementOnPostgres, { timeout: "120 seconds" })((it) => {
    statementContract(it, tick)

    it.effect(
      `a user with ${POSTINGS.toLocaleString("en")} postings: the first and a deep page walk the index, and agree with the ledger`,
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const statements = yield* StatementService
          const user = `bulk-${Date.now().toString(36)}` as UserId
          // Positions are chosen here by posting id, and ids read back: sealed and opened as the service does.
          const sealed = yield* (yield* StatementIds).forUser(user)
          const { cash, coins } = yield* seed(user)
          const [counts] = yield* sql<{ postings: string; balance: string; coins: string }>`SELECT
            (SELECT count(*) FROM ledger_postings WHERE account_id IN (${cash}, ${coins}))::text AS postings,
            (SELECT balance FROM ledger_accounts WHERE id = ${cash})::text AS balance,
            (SELECT balance FROM ledger_accounts WHERE id = ${coins})::text AS coins`
          assert.strictEqual(counts!.postings, String(POSTINGS))

          const first = yield* statements.statement(user, { limit: 50 })
          assert.lengthOf(first.items, 50)
          assert.deepStrictEqual(replayBreaks(first.items), [])
          const newest = (currency: string) => first.items.find((item) => item.currency === currency)
          assert.strictEqual(
            newest("NGN")!.balanceAfter,
            `${BigInt(counts!.balance) / 100n}.${(BigInt(counts!.balance) % 100n).toString().padStart(2, "0")}`
          )
          assert.strictEqual(newest("COIN")!.balanceAfter, counts!.coins)

          // A deep page: the 50 postings below the 99,000th newest. Its balances are the sums of the
          // postings up to each, computed here independently.
          const [deep] = yield* sql<{ id: string }>`SELECT id::text AS id FROM ledger_postings
            WHERE account_id IN (${cash}, ${coins}) ORDER BY ledger_postings.id DESC OFFSET 99000 LIMIT 1`
          const [older] = yield* sql<{ count: string }>`SELECT count(*)::text AS count FROM ledger_postings
            WHERE account_id IN (${cash}, ${coins}) AND id < ${deep!.id}::bigint`
          assert.strictEqual(older!.count, "999")
          const page = yield* statements.statement(user, { limit: 50, after: sealed.seal(BigInt(deep!.id)) })
          assert.lengthOf(page.items, 50)
          assert.deepStrictEqual(replayBreaks(page.items), [])
          for (const item of [page.items[0]!, page.items[49]!]) {
            const [sum] = yield* sql<{ total: string }>`SELECT sum(p.amount_minor)::text AS total
              FROM ledger_postings p JOIN ledger_postings me ON me.id = ${String(sealed.open(item.id))}::bigint
              WHERE p.account_id = me.account_id AND p.id <= me.id`
            const total = BigInt(sum!.total)
            const expected =
              item.currency === "COIN"
                ? total.toString()
                : `${total / 100n}.${(total % 100n).toString().padStart(2, "0")}`
            assert.strictEqual(item.balanceAfter, expected, `posting ${item.id}`)
          }
          // A middle page replays too, and joins the page above it.
          const [middle] = yield* sql<{ id: string }>`SELECT id::text AS id FROM ledger_postings
            WHERE account_id IN (${cash}, ${coins}) ORDER BY ledger_postings.id DESC OFFSET 50000 LIMIT 1`
          const above = yield* statements.statement(user, { limit: 10, after: sealed.seal(BigInt(middle!.id) + 1n) })
          const below = yield* statements.statement(user, { limit: 10, after: above.nextCursor! })
          assert.deepStrictEqual(replayBreaks([...above.items, ...below.items]), [])

          const plans = {
            first: yield* explain({ userId: user, limit: 51 }),
            deep: yield* explain({ userId: user, limit: 51, before: BigInt(deep!.id) }),
            deepNgnInPeriod: yield* explain({
              userId: user,
              unit: "NGN",
              from: new Date("2026-01-01T00:10:00Z"),
              to: new Date("2026-01-01T01:00:00Z"),
              limit: 51
            })
          }
          for (const [label, plan] of Object.entries(plans)) assertIndexOnly(plan, label)
          // The first page and one 1,000 postings from the bottom touch a few pages of the index
          // each, not the history: the balance at the top of a page is summed once per account,
          // from whichever end of the account's postings is nearer.
          for (const label of ["first", "deep"] as const) {
            assert.isBelow(buffersOf(plans[label]), 1_000, `${label}:\n${plans[label]}`)
          }
          const out = process.env.STATEMENT_EXPLAIN_OUT
          if (out !== undefined && out !== "") {
            writeFileSync(
              out,
              Object.entries(plans)
                .map(([label, plan]) => `-- ${label}\n${plan}\n`)
                .join("\n")
            )
          }
        }),
      300_000
    )

    // Per user account, the statement's order (posting ids) must be the order the postings
    // committed in, or a running balance it shows may never have been the account's. A posting
    // whose account row is locked by another transaction must therefore draw its ids only once it
    // holds the lock: here it waits while a posting to another user commits, and must come after it.
    for (const [label, movement] of [
      ["a credit", (user: UserId, reference: string) => Movements.deposit(money(user, reference, "5.00"))],
      ["a debit (a transfer hold)", (user: UserId, reference: string) => Movements.hold(money(user, reference, "5.00"))]
    ] as const) {
      // Two sessions at once: the embedded PGlite has one, so this needs PostgreSQL (always in CI).
      it.effect.runIf(inject("databaseMode") === "postgres")(
        `${label} waiting for its user account's lock draws its posting ids after the lock, not before`,
        () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const ledger = yield* Ledger
            const run = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`
            const user = `order-${run}` as UserId
            const other = `order-other-${run}` as UserId
            yield* ledger.post(Result.getOrThrow(Movements.deposit(money(user, `funding-${run}`, "10.00"))))
            const locked = yield* Deferred.make<void>()
            const release = yield* Deferred.make<void>()
            const holder = yield* Effect.forkChild(
              sql.withTransaction(
                Effect.gen(function* () {
                  yield* sql`SELECT 1 FROM ledger_accounts WHERE id = ${`user:${user}:cash:NGN`} FOR UPDATE`
                  yield* Deferred.succeed(locked, undefined)
                  yield* Deferred.await(release)
                })
              )
            )
            yield* Deferred.await(locked)
            // In a transaction, so on a connection of its own: on a shared one (PostgresClient's
            // statements per connection) the posting below could be pipelined behind it and wait for
            // it, which waits for the release that comes after that posting.
            const waiting = yield* Effect.forkChild(
              sql.withTransaction(ledger.post(Result.getOrThrow(movement(user, `waiting-${run}`))))
            )
            // Long enough for the waiting posting to reach the lock (and, drawn first, take its ids); real
            // time, as `tick` (the test clock would never move).
            yield* Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 300)))
            yield* ledger.post(Result.getOrThrow(Movements.deposit(money(other, `meanwhile-${run}`, "1.00"))))
            yield* Deferred.succeed(release, undefined)
            yield* Fiber.join(holder)
            yield* Fiber.join(waiting)
            const [order] = yield* sql<{ waiting: string; meanwhile: string }>`SELECT
              (SELECT min(p.id) FROM ledger_postings p JOIN ledger_transactions t ON t.id = p.transaction_id
                WHERE t.idempotency_key LIKE ${`%waiting-${run}%`})::text AS waiting,
              (SELECT max(p.id) FROM ledger_postings p JOIN ledger_transactions t ON t.id = p.transaction_id
                WHERE t.idempotency_key LIKE ${`%meanwhile-${run}%`})::text AS meanwhile`
            assert.isAbove(Number(order!.waiting), Number(order!.meanwhile), "the waiting posting's ids come after")
          })
      )
    }
  })
})
