import { assert, describe, layer } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import { Account, Ledger } from "@payments-gaming/domain/ledger"
import { Money } from "@payments-gaming/domain/money"
import { Effect, Exit } from "effect"
import * as LedgerPostgres from "../../src/postgres/LedgerPostgres.ts"
import systemBalances from "../../src/postgres/migrations/0007_ledger_system_balances.ts"
import { EmptyDatabase, migrateUpTo } from "../support/TestDatabase.ts"

describe("migration 0007_ledger_system_balances", () => {
  layer(EmptyDatabase, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("turns kept system balances into sums of postings and keeps user balances", () =>
      Effect.gen(function* () {
        const sql = yield* migrateUpTo("0007")
        // Books as the earlier schema kept them: every account with a running balance.
        yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO ledger_accounts (id, unit, owner_user_id, non_negative, balance) VALUES
              ('system:provider-settlement:NGN', 'NGN', NULL, false, -50075),
              ('user:m:cash:NGN', 'NGN', 'm', true, 50075)`
            const [tx] = yield* sql<{ id: bigint }>`INSERT INTO ledger_transactions (idempotency_key, kind)
              VALUES ('dep-m', 'deposit') RETURNING id`
            yield* sql`INSERT INTO ledger_postings (transaction_id, account_id, unit, amount_minor) VALUES
              (${tx!.id}, 'system:provider-settlement:NGN', 'NGN', -50075),
              (${tx!.id}, 'user:m:cash:NGN', 'NGN', 50075)`
          })
        )

        yield* systemBalances

        const rows = yield* sql<{ id: string; balance: bigint | null }>`
          SELECT id, balance FROM ledger_accounts ORDER BY id`
        assert.deepStrictEqual(
          rows.map((row) => [row.id, row.balance]),
          [
            ["system:provider-settlement:NGN", null],
            ["user:m:cash:NGN", 50075n]
          ]
        )
        const ledger = yield* Effect.provide(Ledger, LedgerPostgres.layer)
        assert.strictEqual(Money.format(yield* ledger.balance(Account.providerSettlement("NGN"))), "-500.75")
        assert.strictEqual(Money.format(yield* ledger.balance(Account.userCash("m" as UserId, "NGN"))), "500.75")
        assert.deepStrictEqual(yield* ledger.reconcile, [])
        const unkept =
          yield* Effect.exit(sql`INSERT INTO ledger_accounts (id, unit, owner_user_id, non_negative, balance)
          VALUES ('user:n:cash:NGN', 'NGN', 'n', true, NULL)`)
        assert.isTrue(Exit.isFailure(unkept), "a user account must keep its balance")
      })
    )
  })
})
