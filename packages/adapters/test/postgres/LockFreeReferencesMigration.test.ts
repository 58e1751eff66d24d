import { assert, describe, layer } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import { inject } from "vitest"
import lockFreeReferences from "../../src/postgres/migrations/0022_lock_free_references.ts"
import { pgError } from "../support/PgError.ts"
import { EmptyDatabase, migrateUpTo } from "../support/TestDatabase.ts"

const POOL = "system:prize_pool:NGN"

/** One balanced ledger transaction of `amount` from the prize pool to `account`, in one statement. */
const prize = (sql: SqlClient.SqlClient, key: string, account: string, unit = "NGN") =>
  sql`WITH tx AS (
      INSERT INTO ledger_transactions (idempotency_key, kind) VALUES (${key}, 'spin.prize') RETURNING id
    )
    INSERT INTO ledger_postings (transaction_id, account_id, unit, amount_minor)
    SELECT tx.id, v.account_id, v.unit, v.amount FROM tx,
      (VALUES (${POOL}, 'NGN', -500::bigint), (${account}, ${unit}, 500::bigint)) AS v (account_id, unit, amount)`

/** A spin of `user` on wheel `version`. */
const spin = (sql: SqlClient.SqlClient, user: string, version: number) =>
  sql`INSERT INTO spins (id, user_id, round, wheel_version, client_seed, nonce, draw_value, segment_id,
      prize_type, prize_value, created_at)
    VALUES (gen_random_uuid(), ${user}, '2026-11-29', ${version}, 'seed', 0, 7, 'seg-1', 'coin', 5, now())`

const seed = (sql: SqlClient.SqlClient) =>
  sql`INSERT INTO ledger_accounts (id, unit, owner_user_id, non_negative, balance) VALUES
    (${POOL}, 'NGN', NULL, false, NULL), ('user:ada:cash:NGN', 'NGN', 'ada', true, 500)`

describe("migration 0022_lock_free_references", () => {
  layer(EmptyDatabase, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("keeps the foreign keys' guarantees: no row referencing a missing one, no referenced row lost", () =>
      Effect.gen(function* () {
        const sql = yield* migrateUpTo("0023")
        yield* seed(sql)

        // A posting to a missing account, or to an account under another unit, is refused under the
        // foreign key's name; so is a spin on a missing wheel.
        for (const [key, account, unit] of [
          ["missing", "user:nobody:cash:NGN", "NGN"],
          ["other-unit", "user:ada:cash:NGN", "USD"]
        ] as const) {
          const refused = pgError(yield* Effect.exit(prize(sql, key, account, unit)))
          assert.deepStrictEqual([refused.code, refused.constraint], ["23503", "ledger_postings_account_fkey"], key)
          assert.include(refused.message, `ledger account ${account} (${unit}) does not exist`)
        }
        const noWheel = pgError(yield* Effect.exit(spin(sql, "ada", 99)))
        assert.deepStrictEqual([noWheel.code, noWheel.constraint], ["23503", "spins_wheel_version_fkey"])

        // What references existing rows is written, also an account written earlier in the same
        // statement, as the ledger's own statement does (LedgerWrites.recordParts).
        yield* prize(sql, "to-ada", "user:ada:cash:NGN")
        yield* sql`WITH account AS (
            INSERT INTO ledger_accounts (id, unit, owner_user_id, non_negative, balance)
            VALUES ('user:bola:cash:NGN', 'NGN', 'bola', true, 500)
          ), tx AS (
            INSERT INTO ledger_transactions (idempotency_key, kind) VALUES ('to-bola', 'spin.prize') RETURNING id
          )
          INSERT INTO ledger_postings (transaction_id, account_id, unit, amount_minor)
          SELECT tx.id, v.account_id, 'NGN', v.amount FROM tx,
            (VALUES (${POOL}, -500::bigint), ('user:bola:cash:NGN', 500::bigint)) AS v (account_id, amount)`
        yield* spin(sql, "ada", 1)
        const [count] = yield* sql<{ postings: number; spins: number }>`
          SELECT (SELECT count(*)::int FROM ledger_postings) AS postings, (SELECT count(*)::int FROM spins) AS spins`
        assert.deepStrictEqual(count, { postings: 4, spins: 1 })

        // The referenced rows keep their keys and are never deleted; their other columns change.
        for (const statement of [
          sql`DELETE FROM ledger_accounts WHERE id = ${POOL}`,
          sql`UPDATE ledger_accounts SET id = 'system:elsewhere:NGN' WHERE id = ${POOL}`,
          sql`UPDATE ledger_accounts SET unit = 'USD' WHERE id = 'user:ada:cash:NGN'`,
          sql`TRUNCATE ledger_accounts`,
          sql`DELETE FROM wheels WHERE version = 1`,
          sql`UPDATE wheels SET version = 2 WHERE version = 1`,
          sql`TRUNCATE wheels CASCADE`
        ]) {
          const refused = pgError(yield* Effect.exit(statement))
          assert.strictEqual(refused.code, "23000")
          assert.include(refused.message, "immutable in their keys and never deleted")
        }
        yield* sql`UPDATE ledger_accounts SET balance = balance + 1, updated_at = now() WHERE id = 'user:ada:cash:NGN'`
        yield* sql`UPDATE wheels SET active = false WHERE version = 1`
        yield* sql`UPDATE wheels SET active = true WHERE version = 1`
        const [after] = yield* sql<{ accounts: number; wheels: number; balance: string }>`
          SELECT (SELECT count(*)::int FROM ledger_accounts) AS accounts, (SELECT count(*)::int FROM wheels) AS wheels,
            (SELECT balance::text FROM ledger_accounts WHERE id = 'user:ada:cash:NGN') AS balance`
        assert.deepStrictEqual(after, { accounts: 3, wheels: 1, balance: "501" })

        // The foreign keys are gone, and so is the (id, unit) key that was only their target.
        const constraints = yield* sql<{ name: string }>`SELECT conname AS name FROM pg_constraint
          WHERE conname IN ('ledger_postings_account_fkey', 'spins_wheel_version_fkey', 'ledger_accounts_id_unit_key')`
        assert.deepStrictEqual(constraints, [])
      })
    )
  })
})

// Two sessions at once: the embedded PGlite has one, so this needs PostgreSQL (always in CI).
describe.runIf(inject("databaseMode") === "postgres")("migration 0022_lock_free_references, two sessions", () => {
  layer(EmptyDatabase, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("a posting and a spin no longer lock the prize pool's account and the wheel until they commit", () =>
      Effect.gen(function* () {
        const sql = yield* migrateUpTo("0022")
        yield* seed(sql)

        // While one transaction holds a posting and a spin uncommitted, another tries to lock the
        // rows they reference. FOR UPDATE conflicts with the foreign key's KEY SHARE lock, and
        // NOWAIT fails at once (55P03) instead of waiting.
        let round = 0
        const lockable = Effect.gen(function* () {
          round += 1
          const written = yield* Deferred.make<void>()
          const release = yield* Deferred.make<void>()
          const held = yield* Effect.forkChild(
            sql.withTransaction(
              Effect.gen(function* () {
                yield* prize(sql, `held-${round}`, "user:ada:cash:NGN")
                yield* spin(sql, `held-${round}`, 1)
                yield* Deferred.succeed(written, undefined)
                yield* Deferred.await(release)
              })
            )
          )
          yield* Deferred.await(written)
          const probe = (statement: Effect.Effect<unknown, SqlError.SqlError>) =>
            Effect.map(Effect.exit(sql.withTransaction(statement)), (exit) =>
              Exit.isSuccess(exit) ? "locked" : pgError(exit).code
            )
          const results = [
            yield* probe(sql`SELECT 1 FROM ledger_accounts WHERE id = ${POOL} FOR UPDATE NOWAIT`),
            yield* probe(sql`SELECT 1 FROM wheels WHERE version = 1 FOR UPDATE NOWAIT`)
          ]
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(held)
          return results
        })

        // Under the foreign keys (before 0022): both rows are held by the open transaction.
        assert.deepStrictEqual(yield* lockable, ["55P03", "55P03"])
        yield* lockFreeReferences
        assert.deepStrictEqual(yield* lockable, ["locked", "locked"])
      })
    )
  })
})
