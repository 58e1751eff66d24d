import { assert, describe, layer } from "@effect/vitest"
import { TestDatabase as BankingDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import * as Layers from "@payments-gaming/composition/Layers"
import type { UserId } from "@payments-gaming/domain/auth"
import { Account, Ledger, LedgerKeys, LedgerTransaction, Movements } from "@payments-gaming/domain/ledger"
import { Money } from "@payments-gaming/domain/money"
import { deposit, freshUser, ledgerContract } from "@payments-gaming/domain/test/support/ledgerContract"
import { BigDecimal, Effect, Exit, Layer, Option, Result } from "effect"
import { SqlClient } from "effect/sql"

const dec = BigDecimal.fromStringUnsafe

/** A fresh user with `amount` deposited, and the SQL client to look at what was stored. */
const freshDeposit = (amount: string) =>
  Effect.gen(function* () {
    const user = freshUser()
    yield* (yield* Ledger).post(deposit(`dep-${user}`, user, amount))
    return { sql: yield* SqlClient.SqlClient, user }
  })

const Live = Layers.Ledger.pipe(Layer.provideMerge(BankingDatabase))

describe("Ledger on PostgreSQL", () => {
  layer(Live, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    ledgerContract(it)

    it.effect("stores amounts as minor units and keeps postings immutable", () =>
      Effect.gen(function* () {
        const { sql, user } = yield* freshDeposit("1500.5")
        const rows = yield* sql<{ account_id: string; unit: string; amount_minor: bigint }>`
          SELECT p.account_id, p.unit, p.amount_minor FROM ledger_postings p
          JOIN ledger_transactions t ON t.id = p.transaction_id
          WHERE t.idempotency_key = ${LedgerKeys.depositKey(`dep-${user}`)} ORDER BY p.id`
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
        const remove = yield* Effect.exit(
          sql`DELETE FROM ledger_transactions WHERE idempotency_key = ${LedgerKeys.depositKey(`dep-${user}`)}`
        )
        assert.isTrue(Exit.isFailure(remove))
      })
    )

    it.effect("a transaction over several users, with two postings on one account, is stored as given, once", () =>
      Effect.gen(function* () {
        // The posting statement takes its rows as arrays (LedgerWrites.recordParts); the builders of
        // Movements never give it more than one user account, so this transaction is made by hand:
        // once as credits only (one statement) and once with a debit (the conditional updates).
        const ledger = yield* Ledger
        const sql = yield* SqlClient.SqlClient
        const [payer, payee] = [freshUser("payer"), freshUser("payee")]
        yield* ledger.post(deposit(`dep-${payer}`, payer, "10"))
        const settlement = Account.providerSettlement("NGN")
        const cash = (user: UserId) => Account.userCash(user, "NGN")
        const transaction = (key: string, postings: ReadonlyArray<readonly [Account.Account, string]>) =>
          Result.getOrThrow(
            LedgerTransaction.make({
              key,
              kind: "deposit",
              postings: postings.map(([account, amount]) => ({ account, amount: dec(amount) }))
            })
          )
        const stored = (key: string) =>
          Effect.map(
            sql<{ account_id: string; amount_minor: bigint }>`SELECT p.account_id, p.amount_minor
              FROM ledger_postings p JOIN ledger_transactions t ON t.id = p.transaction_id
              WHERE t.idempotency_key = ${key} ORDER BY p.id`,
            (rows) => rows.map((row) => [row.account_id, row.amount_minor])
          )
        const balance = (user: UserId) => Effect.map(ledger.balance(cash(user)), Money.format)

        const credits = transaction(`credits-${payee}`, [
          [cash(payee), "2"],
          [settlement, "-3"],
          [cash(payer), "1"]
        ])
        assert.isTrue((yield* ledger.post(credits)).created)
        assert.deepStrictEqual(yield* stored(credits.key), [
          [cash(payee).id, 200n],
          [settlement.id, -300n],
          [cash(payer).id, 100n]
        ])

        const withDebit = transaction(`debit-${payer}`, [
          [cash(payee), "3"],
          [settlement, "-5"],
          [cash(payer), "-2"],
          [cash(payee), "4"]
        ])
        assert.isTrue((yield* ledger.post(withDebit)).created)
        assert.isFalse((yield* ledger.post(withDebit)).created)
        assert.deepStrictEqual(yield* stored(withDebit.key), [
          [cash(payee).id, 300n],
          [settlement.id, -500n],
          [cash(payer).id, -200n],
          [cash(payee).id, 400n]
        ])
        assert.deepStrictEqual([yield* balance(payer), yield* balance(payee)], ["9.00", "9.00"])
        assert.deepStrictEqual(yield* ledger.reconcile, [])
      })
    )

    it.effect("refuses TRUNCATE of the append-only tables, directly or by cascade, and keeps every row", () =>
      Effect.gen(function* () {
        const { sql } = yield* freshDeposit("3")
        const count = (table: "ledger_transactions" | "ledger_postings") =>
          Effect.map(sql<{ n: string }>`SELECT count(*)::text AS n FROM ${sql(table)}`, (rows) => Number(rows[0]?.n))
        const before = [yield* count("ledger_transactions"), yield* count("ledger_postings")]
        assert.isAbove(before[0]!, 0)
        for (const statement of [
          sql`TRUNCATE ledger_postings`,
          sql`TRUNCATE ledger_transactions, ledger_postings`,
          sql`TRUNCATE ledger_transactions CASCADE`,
          sql`TRUNCATE ledger_accounts CASCADE`
        ]) {
          const refused = yield* Effect.exit(statement)
          assert.isTrue(Exit.isFailure(refused))
          assert.include(String(refused), "immutable")
        }
        assert.deepStrictEqual([yield* count("ledger_transactions"), yield* count("ledger_postings")], before)
      })
    )

    it.effect("stores the keys of the longest reference on every movement", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger
        const user = freshUser()
        // A 256-character reference, as banking's Reference allows: each key is longer than 256.
        const reference = (label: string) => `${label}-${user}-`.padEnd(256, "x")
        const credit = deposit(reference("C"), user, "30")
        assert.isAbove(credit.key.length, 256)
        assert.isTrue((yield* ledger.post(credit)).created)
        for (const [label, finish] of [
          ["S", Movements.settle],
          ["F", Movements.returnHold]
        ] as const) {
          const options = { reference: reference(label), userId: user, currency: "NGN" as const, amount: dec("10") }
          assert.isTrue((yield* ledger.post(Result.getOrThrow(Movements.hold(options)))).created)
          const last = Result.getOrThrow(finish(options))
          assert.isAbove(last.key.length, 256)
          assert.isTrue((yield* ledger.post(last)).created)
          assert.isTrue(Option.isSome(yield* ledger.find(last.key)))
        }
        assert.strictEqual(Money.format(yield* ledger.balance(Account.userCash(user, "NGN"))), "20.00")
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

    it.effect("postings never rewrite a system account's row: its balance is the sum of its postings", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const ledger = yield* Ledger
        const pool = Account.coinPrizePool
        const prize = (user: UserId, coins: bigint) =>
          ledger.post(Result.getOrThrow(Movements.coinPrize({ key: `spin-${user}`, userId: user, coins })))
        yield* prize(freshUser("s"), 5n)
        const row = sql<{ xmin: string; balance: bigint | null }>`
          SELECT xmin::text AS xmin, balance FROM ledger_accounts WHERE id = ${pool.id}`
        const rowBefore = yield* row
        const before = yield* ledger.balance(pool)
        yield* Effect.forEach([7n, 11n, 13n], (coins) => prize(freshUser("s"), coins), { concurrency: "unbounded" })
        // Same row version (xmin): not updated, and no balance kept on it.
        assert.deepStrictEqual(yield* row, rowBefore)
        assert.isNull(rowBefore[0]!.balance)
        const after = yield* ledger.balance(pool)
        assert.strictEqual(BigDecimal.format(BigDecimal.subtract(after.amount, before.amount)), "-31")
        const [posted] = yield* sql<{ total: string }>`
          SELECT sum(amount_minor)::text AS total FROM ledger_postings WHERE account_id = ${pool.id}`
        assert.strictEqual(BigDecimal.format(after.amount), posted!.total)
      })
    )

    it.effect("stores postings in the transaction's order, not the order accounts are locked in", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger
        const user = freshUser()
        yield* ledger.post(deposit(`dep-${user}`, user, "9"))
        const hold = Result.getOrThrow(
          Movements.hold({
            reference: `R-${user}`,
            userId: user,
            currency: "NGN",
            amount: BigDecimal.fromStringUnsafe("4")
          })
        )
        yield* ledger.post(hold)
        const stored = Option.getOrThrow(yield* ledger.find(hold.key))
        assert.deepStrictEqual(
          stored.postings.map((posting) => [posting.account.id, BigDecimal.format(posting.amount)]),
          [
            [`user:${user}:cash:NGN`, "-4"],
            ["system:transfers-in-flight:NGN", "4"]
          ]
        )
      })
    )

    it.effect("reconcile still checks every user balance against the sum of its postings", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const ledger = yield* Ledger
        const user = freshUser()
        const id = `user:${user}:cash:NGN`
        yield* ledger.post(deposit(`dep-${user}`, user, "5"))
        yield* sql`UPDATE ledger_accounts SET balance = balance + 1 WHERE id = ${id}`
        const found = yield* ledger.reconcile
        yield* sql`UPDATE ledger_accounts SET balance = balance - 1 WHERE id = ${id}`
        assert.deepStrictEqual(found, [{ kind: "balance-mismatch", subject: id, detail: "balance 501, postings 500" }])
        assert.deepStrictEqual(yield* ledger.reconcile, [])
        // A user account cannot drop its maintained balance.
        assert.isTrue(
          Exit.isFailure(yield* Effect.exit(sql`UPDATE ledger_accounts SET balance = NULL WHERE id = ${id}`))
        )
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
