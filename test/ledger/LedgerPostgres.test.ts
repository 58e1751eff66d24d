import { assert, describe, layer } from "@effect/vitest"
import { Account, Ledger, Movements } from "@payments-gaming/domain/ledger"
import { BigDecimal, Effect, Exit, Layer, Result } from "effect"
import { SqlClient } from "effect/sql"
import * as BankingPostgres from "../../packages/adapters/src/postgres/BankingPostgres.ts"
import { TestDatabase as BankingDatabase } from "../support/TestDatabase.ts"
import { deposit, freshUser, ledgerContract } from "./ledgerContract.ts"

const Live = BankingPostgres.layerLedger.pipe(Layer.provideMerge(BankingDatabase))

describe("Ledger on PostgreSQL", () => {
  layer(Live, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    ledgerContract(it)

    it.effect("stores amounts as minor units and keeps postings immutable", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const ledger = yield* Ledger
        const user = freshUser()
        yield* ledger.post(deposit(`dep-${user}`, user, "1500.5"))
        const rows = yield* sql<{ account_id: string; unit: string; amount_minor: bigint }>`
          SELECT p.account_id, p.unit, p.amount_minor FROM ledger_postings p
          JOIN ledger_transactions t ON t.id = p.transaction_id
          WHERE t.idempotency_key = ${`dep-${user}`} ORDER BY p.id`
        assert.deepStrictEqual(
          rows.map((row) => [row.account_id, row.unit, row.amount_minor]),
          [
            ["system:provider-settlement:NGN", "NGN", -150050n],
            [`user:${user}:cash:NGN`, "NGN", 150050n]
          ]
        )
        const update = yield* Effect.exit(
          sql`UPDATE ledger_postings SET amount_minor = 1 WHERE account_id = ${`user:${user}:cash:NGN`}`
        )
        assert.isTrue(Exit.isFailure(update))
        const remove = yield* Effect.exit(sql`DELETE FROM ledger_transactions WHERE idempotency_key = ${`dep-${user}`}`)
        assert.isTrue(Exit.isFailure(remove))
      })
    )

    it.effect("the database itself refuses an unbalanced transaction and a negative user balance", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const ledger = yield* Ledger
        const user = freshUser()
        yield* ledger.post(deposit(`dep-${user}`, user, "1"))
        const unbalanced = yield* Effect.exit(
          sql.withTransaction(
            Effect.gen(function* () {
              const [tx] = yield* sql<{ id: bigint }>`INSERT INTO ledger_transactions (idempotency_key, kind)
                VALUES (${`bad-${user}`}, 'deposit') RETURNING id`
              yield* sql`INSERT INTO ledger_postings (transaction_id, account_id, unit, amount_minor)
                VALUES (${tx!.id}, ${`user:${user}:cash:NGN`}, 'NGN', 5)`
            })
          )
        )
        assert.isTrue(Exit.isFailure(unbalanced))
        const [count] = yield* sql<{
          n: bigint
        }>`SELECT count(*) AS n FROM ledger_transactions WHERE idempotency_key = ${`bad-${user}`}`
        assert.strictEqual(count!.n, 0n)
        const negative = yield* Effect.exit(
          sql`UPDATE ledger_accounts SET balance = -1 WHERE id = ${`user:${user}:cash:NGN`}`
        )
        assert.isTrue(Exit.isFailure(negative))
        assert.strictEqual(BigDecimal.format((yield* ledger.balance(Account.userCash(user, "NGN"))).amount), "1")
      })
    )

    it.effect("concurrent holds and settlements across users stay consistent", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger
        const users = Array.from({ length: 8 }, () => freshUser("c"))
        yield* Effect.forEach(users, (user) => ledger.post(deposit(`dep-${user}`, user, "50")), {
          concurrency: "unbounded"
        })
        yield* Effect.forEach(
          users.flatMap((user) => [0, 1, 2].map((i) => ({ user, reference: `R-${user}-${i}` }))),
          ({ user, reference }) =>
            Effect.gen(function* () {
              const amount = BigDecimal.fromStringUnsafe("20")
              const held = yield* Effect.result(
                ledger.post(Result.getOrThrow(Movements.hold({ reference, userId: user, currency: "NGN", amount })))
              )
              if (Result.isSuccess(held)) {
                yield* ledger.post(Result.getOrThrow(Movements.settle({ reference, currency: "NGN", amount })))
              }
            }),
          { concurrency: "unbounded" }
        )
        for (const user of users) {
          const money = yield* ledger.balance(Account.userCash(user, "NGN"))
          assert.strictEqual(BigDecimal.format(money.amount), "10")
        }
        assert.deepStrictEqual(yield* ledger.reconcile, [])
      })
    )
  })
})
