import { assert, type Vitest } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import { Account, Ledger, LedgerKeys, Movements, UnitOfWork } from "@payments-gaming/domain/ledger"
import { Money } from "@payments-gaming/domain/money"
import { BigDecimal, Effect, Exit, Option, Result } from "effect"

type It = Vitest.MethodsNonLive<Ledger | UnitOfWork>

const dec = BigDecimal.fromStringUnsafe
let counter = 0
/** A user id no other test touches, so tests can share one database. */
export const freshUser = (label = "u") => `${label}-${Date.now().toString(36)}-${counter++}` as UserId

/** A credit of `reference`, posted under `LedgerKeys.depositKey(reference)`. */
export const deposit = (reference: string, userId: UserId, amount: string, currency: "NGN" | "USD" = "NGN") =>
  Result.getOrThrow(Movements.deposit({ reference, userId, currency, amount: dec(amount) }))

const formatted = (money: Money.Money) => Money.format(money)

/** The behaviour every `Ledger` + `UnitOfWork` implementation must have, in memory or in SQL. */
export const ledgerContract = (it: It) => {
  it.effect("posts once per idempotency key", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const user = freshUser()
      const first = yield* ledger.post(deposit(`dep-${user}`, user, "100.50"))
      assert.isTrue(first.created)
      const again = yield* ledger.post(deposit(`dep-${user}`, user, "999"))
      assert.isFalse(again.created)
      // The stored transaction comes back, not the one offered the second time.
      assert.deepStrictEqual(
        again.transaction.postings.map((posting) => [posting.account.id, BigDecimal.format(posting.amount)]),
        [
          ["system:provider-settlement:NGN", "-100.5"],
          [`user:${user}:cash:NGN`, "100.5"]
        ]
      )
      assert.strictEqual(formatted(yield* ledger.balance(Account.userCash(user, "NGN"))), "100.50")
      const found = yield* ledger.find(LedgerKeys.depositKey(`dep-${user}`))
      assert.isTrue(Option.isSome(found))
      assert.strictEqual(Option.getOrThrow(found).kind, "deposit")
    })
  )

  it.effect("refuses to take a user account below zero and posts nothing", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const user = freshUser()
      yield* ledger.post(deposit(`dep-${user}`, user, "10"))
      const inFlightBefore = yield* ledger.balance(Account.transfersInFlight("NGN"))
      const hold = Result.getOrThrow(
        Movements.hold({ reference: `R-${user}`, userId: user, currency: "NGN", amount: dec("10.01") })
      )
      const refused = yield* Effect.exit(ledger.post(hold))
      assert.isTrue(Exit.isFailure(refused))
      const error = yield* Effect.flip(ledger.post(hold))
      assert.strictEqual(error._tag, "InsufficientFunds")
      assert.strictEqual(error.available, "10.00")
      assert.strictEqual(error.requested, "10.01")
      assert.isTrue(Option.isNone(yield* ledger.find(hold.key)))
      assert.strictEqual(formatted(yield* ledger.balance(Account.userCash(user, "NGN"))), "10.00")
      assert.isTrue(Money.equals(yield* ledger.balance(Account.transfersInFlight("NGN")), inFlightBefore))
    })
  )

  it.effect("lists a user's coins and cash per currency", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const user = freshUser()
      const empty = yield* ledger.balances(user)
      assert.strictEqual(empty.coins, 0n)
      assert.deepStrictEqual(empty.cash, [])
      yield* ledger.post(deposit(`a-${user}`, user, "5", "USD"))
      yield* ledger.post(deposit(`b-${user}`, user, "7.25"))
      yield* ledger.post(Result.getOrThrow(Movements.coinPrize({ key: `spin-${user}`, userId: user, coins: 20n })))
      yield* ledger.post(
        Result.getOrThrow(
          Movements.cashPrize({ key: `spin2-${user}`, userId: user, currency: "NGN", amount: dec("50") })
        )
      )
      const balances = yield* ledger.balances(user)
      assert.strictEqual(balances.coins, 20n)
      assert.deepStrictEqual(
        balances.cash.map((money) => [money.currency, formatted(money)]),
        [
          ["NGN", "57.25"],
          ["USD", "5.00"]
        ]
      )
    })
  )

  it.effect("posts inside the caller's unit of work and rolls back with it", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const unit = yield* UnitOfWork
      const user = freshUser()
      const outer = yield* Effect.exit(
        unit.transaction(
          Effect.gen(function* () {
            yield* ledger.post(deposit(`dep-${user}`, user, "40"))
            assert.strictEqual(formatted(yield* ledger.balance(Account.userCash(user, "NGN"))), "40.00")
            return yield* Effect.fail("the caller gives up" as const)
          })
        )
      )
      assert.isTrue(Exit.isFailure(outer))
      assert.isTrue(Option.isNone(yield* ledger.find(LedgerKeys.depositKey(`dep-${user}`))))
      assert.strictEqual(formatted(yield* ledger.balance(Account.userCash(user, "NGN"))), "0.00")
    })
  )

  it.effect("a refused posting inside a unit of work undoes only itself", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const unit = yield* UnitOfWork
      const user = freshUser()
      yield* unit.transaction(
        Effect.gen(function* () {
          yield* ledger.post(deposit(`dep-${user}`, user, "30"))
          const hold = Result.getOrThrow(
            Movements.hold({ reference: `R-${user}`, userId: user, currency: "NGN", amount: dec("31") })
          )
          const refused = yield* Effect.flip(unit.transaction(ledger.post(hold)))
          assert.strictEqual(refused._tag, "InsufficientFunds")
        })
      )
      assert.strictEqual(formatted(yield* ledger.balance(Account.userCash(user, "NGN"))), "30.00")
      assert.isTrue(Option.isNone(yield* ledger.find(`transfer:R-${user}:hold`)))
    })
  )

  it.effect("concurrent spends never overdraw, and concurrent identical posts count once", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const user = freshUser()
      yield* ledger.post(deposit(`dep-${user}`, user, "100"))
      const holds = Array.from({ length: 25 }, (_, i) =>
        ledger
          .post(
            Result.getOrThrow(
              Movements.hold({ reference: `R-${user}-${i}`, userId: user, currency: "NGN", amount: dec("10") })
            )
          )
          .pipe(Effect.result)
      )
      const results = yield* Effect.all(holds, { concurrency: "unbounded" })
      assert.strictEqual(results.filter(Result.isSuccess).length, 10)
      assert.strictEqual(formatted(yield* ledger.balance(Account.userCash(user, "NGN"))), "0.00")

      const same = yield* Effect.all(
        Array.from({ length: 25 }, () => ledger.post(deposit(`again-${user}`, user, "1"))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(same.filter((posted) => posted.created).length, 1)
      assert.strictEqual(formatted(yield* ledger.balance(Account.userCash(user, "NGN"))), "1.00")
      assert.deepStrictEqual(yield* ledger.reconcile, [])
    })
  )

  it.effect("keeps every balance equal to the sum of its postings", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const user = freshUser()
      yield* ledger.post(deposit(`dep-${user}`, user, "12.34"))
      yield* ledger.post(
        Result.getOrThrow(
          Movements.hold({ reference: `R-${user}`, userId: user, currency: "NGN", amount: dec("2.34") })
        )
      )
      yield* ledger.post(
        Result.getOrThrow(Movements.settle({ reference: `R-${user}`, currency: "NGN", amount: dec("2.34") }))
      )
      assert.deepStrictEqual(yield* ledger.reconcile, [])
      assert.isTrue(Option.isNone(yield* ledger.find(`never-posted-${user}`)))
    })
  )
}
