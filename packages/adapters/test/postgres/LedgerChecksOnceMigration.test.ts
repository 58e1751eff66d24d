import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import ledgerChecksOnce from "../../src/postgres/migrations/0023_ledger_checks_once.ts"
import { pgError } from "../support/PgError.ts"
import { EmptyDatabase, migrateUpTo } from "../support/TestDatabase.ts"

const POOL = "system:prize_pool:NGN"
const ADA = "user:ada:cash:NGN"
const COIN_POOL = "system:prize_pool:COIN"
const ADA_COINS = "user:ada:coins:COIN"

/** An account id's unit, its last part (`user:ada:cash:NGN`). */
const unitOf = (account: string) => account.slice(account.lastIndexOf(":") + 1)

/** A ledger transaction `key` with `postings` ([account, amount], in the account's unit), in one statement as the ledger writes one. */
const post = (sql: SqlClient.SqlClient, key: string, postings: ReadonlyArray<readonly [string, number]>) =>
  sql`WITH tx AS (
      INSERT INTO ledger_transactions (idempotency_key, kind) VALUES (${key}, 'spin.prize') RETURNING id
    )
    INSERT INTO ledger_postings (transaction_id, account_id, unit, amount_minor)
    SELECT tx.id, v.account_id, v.unit, v.amount FROM tx,
      unnest(${postings.map(([account]) => account)}::text[], ${postings.map(([account]) => unitOf(account))}::text[],
        ${postings.map(([, amount]) => amount)}::bigint[]) AS v (account_id, unit, amount)`

const prize = (sql: SqlClient.SqlClient, key: string) =>
  post(sql, key, [
    [POOL, -500],
    [ADA, 500]
  ])

const seed = (sql: SqlClient.SqlClient) =>
  sql`INSERT INTO ledger_accounts (id, unit, owner_user_id, non_negative, balance) VALUES
    (${POOL}, 'NGN', NULL, false, NULL), (${ADA}, 'NGN', 'ada', true, 500),
    (${COIN_POOL}, 'COIN', NULL, false, NULL), (${ADA_COINS}, 'COIN', 'ada', true, 0)`

/**
 * How many times each ledger check ran for two prizes of two postings, in one database transaction
 * with the deferred checks fired before COMMIT (`SET CONSTRAINTS ALL IMMEDIATE`), as PostgreSQL
 * counts a transaction's function calls (`pg_stat_xact_user_functions`, with `track_functions`).
 */
const checksRun = (sql: SqlClient.SqlClient, round: string) =>
  sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SET LOCAL track_functions = 'pl'`
      yield* prize(sql, `${round}-1`)
      yield* prize(sql, `${round}-2`)
      yield* sql`SET CONSTRAINTS ALL IMMEDIATE`
      const calls = yield* sql<{ name: string; calls: number }>`
        SELECT funcname AS name, calls::int AS calls FROM pg_stat_xact_user_functions ORDER BY funcname`
      return Object.fromEntries(calls.map(({ name, calls }) => [name, calls]))
    })
  )

describe("migration 0023_ledger_checks_once", () => {
  layer(EmptyDatabase, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect(
      "checks a transaction's balance once and a statement's postings once, where it checked every posting",
      () =>
        Effect.gen(function* () {
          const sql = yield* migrateUpTo("0023")
          yield* seed(sql)
          // Before: per posting, the account's lookup at the statement's end and the balance at COMMIT.
          assert.deepStrictEqual(yield* checksRun(sql, "before"), {
            ledger_check_balanced: 4,
            ledger_postings_account_fkey_check: 4
          })
          yield* ledgerChecksOnce
          assert.deepStrictEqual(yield* checksRun(sql, "after"), {
            ledger_postings_checked: 2,
            ledger_transaction_balanced: 2
          })
        })
    )
  })

  // A database of its own: the test above migrated its database in two steps.
  layer(EmptyDatabase, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect(
      "keeps every guarantee of the checks it replaces, and refuses a posting added to a written transaction",
      () =>
        Effect.gen(function* () {
          const sql = yield* migrateUpTo("0024")
          yield* seed(sql)
          const refused = (statement: Effect.Effect<unknown, SqlError.SqlError>) =>
            Effect.map(Effect.exit(statement), pgError)

          // Unbalanced (a single posting always is), or no posting at all: refused at COMMIT.
          for (const postings of [
            [
              [POOL, -500],
              [ADA, 400]
            ],
            [[ADA, 500]]
          ] as const) {
            const unbalanced = yield* refused(post(sql, `unbalanced-${postings.length}`, postings))
            assert.strictEqual(unbalanced.code, "23514")
            assert.match(unbalanced.message, /^ledger transaction \d+ does not sum to zero in NGN$/)
          }
          // Each unit on its own: balanced in NGN but not in COIN is refused, naming COIN.
          const coins = yield* refused(
            post(sql, "unbalanced-coins", [
              [POOL, -500],
              [ADA, 500],
              [COIN_POOL, -3],
              [ADA_COINS, 2]
            ])
          )
          assert.strictEqual(coins.code, "23514")
          assert.match(coins.message, /^ledger transaction \d+ does not sum to zero in COIN$/)
          yield* post(sql, "two-units", [
            [POOL, -500],
            [ADA, 500],
            [COIN_POOL, -3],
            [ADA_COINS, 3]
          ])
          const empty = yield* refused(
            sql`INSERT INTO ledger_transactions (idempotency_key, kind) VALUES ('empty', 'spin.prize')`
          )
          assert.strictEqual(empty.code, "23514")
          assert.match(empty.message, /^ledger transaction \d+ has fewer than two postings$/)

          // A missing account, or an account under another unit, under 0022's name and message.
          const missing = yield* refused(
            post(sql, "missing", [
              [POOL, -500],
              ["user:nobody:cash:NGN", 500]
            ])
          )
          assert.deepStrictEqual([missing.code, missing.constraint], ["23503", "ledger_postings_account_fkey"])
          assert.include(missing.message, "ledger account user:nobody:cash:NGN (NGN) does not exist")

          // Still deferred: a transaction's postings may follow it in a later statement of the same
          // database transaction.
          yield* sql.withTransaction(
            Effect.gen(function* () {
              const [tx] = yield* sql<{ id: string }>`
              INSERT INTO ledger_transactions (idempotency_key, kind) VALUES ('in-two', 'spin.prize') RETURNING id::text`
              yield* sql`INSERT INTO ledger_postings (transaction_id, account_id, unit, amount_minor)
              VALUES (${tx!.id}::bigint, ${POOL}, 'NGN', -500), (${tx!.id}::bigint, ${ADA}, 'NGN', 500)`
            })
          )

          // Not to a transaction written before, even balanced; nor to one that does not exist.
          const [written] = yield* sql<{
            id: string
          }>`SELECT id::text FROM ledger_transactions WHERE idempotency_key = 'in-two'`
          for (const id of [written!.id, "999999"]) {
            const late = yield* refused(
              sql`INSERT INTO ledger_postings (transaction_id, account_id, unit, amount_minor)
              VALUES (${id}::bigint, ${POOL}, 'NGN', -7), (${id}::bigint, ${ADA}, 'NGN', 7)`
            )
            assert.deepStrictEqual([late.code, late.constraint], ["23503", "ledger_postings_transaction_id_fkey"], id)
            assert.include(late.message, `ledger transaction ${id} was not written by this database transaction`)
          }

          // Only the balanced ones were written.
          yield* prize(sql, "to-ada")
          const rows = yield* sql<{ key: string; postings: number; total: string }>`
          SELECT t.idempotency_key AS key, count(p.id)::int AS postings, coalesce(sum(p.amount_minor), 0)::text AS total
          FROM ledger_transactions t LEFT JOIN ledger_postings p ON p.transaction_id = t.id
          GROUP BY t.idempotency_key ORDER BY t.idempotency_key`
          assert.deepStrictEqual(rows, [
            { key: "in-two", postings: 2, total: "0" },
            { key: "to-ada", postings: 2, total: "0" },
            { key: "two-units", postings: 4, total: "0" }
          ])
          const fkeys = yield* sql<{ name: string }>`SELECT conname AS name FROM pg_constraint
          WHERE conrelid = 'ledger_postings'::regclass AND contype = 'f'`
          assert.deepStrictEqual(fkeys, [])
        })
    )
  })
})
