import { assert, describe, it } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import { MAX_REFERENCE_LENGTH } from "@payments-gaming/domain/banking"
import { Account, LedgerKeys, LedgerTransaction, Movements } from "@payments-gaming/domain/ledger"
import { BigDecimal, Result } from "effect"

const dec = BigDecimal.fromStringUnsafe
const u1 = "u1" as UserId

describe("LedgerTransaction.make", () => {
  it("accepts postings that sum to zero per unit", () => {
    const made = LedgerTransaction.make({
      key: "k1",
      kind: "deposit",
      postings: [
        { account: Account.providerSettlement("NGN"), amount: dec("-100.50") },
        { account: Account.userCash(u1, "NGN"), amount: dec("100.5") },
        { account: Account.coinPrizePool, amount: dec("-10") },
        { account: Account.userCoins(u1), amount: dec("10") }
      ]
    })
    assert.isTrue(Result.isSuccess(made))
  })

  const refused = (input: LedgerTransaction.LedgerTransactionInput, fragment: string) => {
    const made = LedgerTransaction.make(input)
    assert.isTrue(Result.isFailure(made))
    if (Result.isFailure(made)) {
      assert.strictEqual(made.failure._tag, "InvalidTransaction")
      assert.include(made.failure.message, fragment)
    }
  }

  /** `[account, amount]` pairs as postings. */
  const postings = (...entries: ReadonlyArray<readonly [Account.Account, string]>) =>
    entries.map(([account, amount]) => ({ account, amount: dec(amount) }))
  const settlement = Account.providerSettlement("NGN")
  const cash = Account.userCash(u1, "NGN")

  it("refuses an unbalanced transaction", () =>
    refused({ key: "k", kind: "deposit", postings: postings([settlement, "-100"], [cash, "100.01"]) }, "sum to 0.01"))

  it("refuses to balance one currency against another, or coins against cash", () => {
    const cases: ReadonlyArray<LedgerTransaction.LedgerTransactionInput> = [
      { key: "k", kind: "deposit", postings: postings([settlement, "-100"], [Account.userCash(u1, "USD"), "100"]) },
      {
        key: "k",
        kind: "prize",
        postings: postings([Account.cashPrizePool("NGN"), "-10"], [Account.userCoins(u1), "10"])
      }
    ]
    for (const input of cases) refused(input, "not 0")
  })

  it("refuses fewer than two postings, zero postings, bad precision and empty keys", () => {
    const cases: ReadonlyArray<readonly [LedgerTransaction.LedgerTransactionInput, string]> = [
      [{ key: "k", kind: "deposit", postings: postings([Account.userCash("u" as UserId, "NGN"), "0"]) }, "two"],
      [{ key: "k", kind: "deposit", postings: postings([settlement, "0"], [cash, "0"]) }, "zero posting"],
      [{ key: "k", kind: "deposit", postings: postings([settlement, "-1.005"], [cash, "1.005"]) }, "decimal"],
      [
        {
          key: "k",
          kind: "prize",
          postings: postings([Account.coinPrizePool, "-0.5"], [Account.userCoins(u1), "0.5"])
        },
        "decimal"
      ],
      [{ key: "", kind: "deposit", postings: postings([settlement, "-1"], [cash, "1"]) }, "key"]
    ]
    for (const [input, fragment] of cases) refused(input, fragment)
  })

  it("builds the two-phase transfer movements with their keys and accounts", () => {
    const options = { reference: "R1", userId: u1, currency: "NGN" as const, amount: dec("25") }
    const hold = Result.getOrThrow(Movements.hold(options))
    assert.deepStrictEqual(
      hold.postings.map((p) => [p.account.id, BigDecimal.format(p.amount)]),
      [
        ["user:u1:cash:NGN", "-25"],
        ["system:transfers-in-flight:NGN", "25"]
      ]
    )
    const movements: ReadonlyArray<readonly [LedgerTransaction.LedgerTransaction, string, ReadonlyArray<string>]> = [
      [hold, "transfer:R1:hold", ["user:u1:cash:NGN", "system:transfers-in-flight:NGN"]],
      [
        Result.getOrThrow(Movements.settle(options)),
        "transfer:R1:settle",
        ["system:transfers-in-flight:NGN", "system:provider-settlement:NGN"]
      ],
      [
        Result.getOrThrow(Movements.returnHold(options)),
        "transfer:R1:return",
        ["system:transfers-in-flight:NGN", "user:u1:cash:NGN"]
      ]
    ]
    for (const [transaction, key, accounts] of movements) {
      assert.strictEqual(transaction.key, key)
      assert.deepStrictEqual(
        transaction.postings.map((p) => p.account.id),
        accounts
      )
    }
    const credit = Result.getOrThrow(
      Movements.deposit({ reference: "VA1", userId: u1, currency: "NGN", amount: dec("25") })
    )
    assert.strictEqual(credit.key, "virtualaccount.credit:VA1")
    assert.isTrue(Result.isFailure(Movements.coinPrize({ key: "spin-1", userId: u1, coins: 0n })))
    assert.strictEqual(Result.getOrThrow(Movements.coinPrize({ key: "spin-1", userId: u1, coins: 20n })).kind, "prize")
  })
})

describe("ledger keys", () => {
  it("every movement of the longest reference banking accepts builds, and a longer key is refused", () => {
    const reference = "r".repeat(MAX_REFERENCE_LENGTH)
    const options = { reference, userId: u1, currency: "NGN" as const, amount: dec("1") }
    const built = [
      Movements.deposit(options),
      Movements.hold(options),
      Movements.settle(options),
      Movements.returnHold(options)
    ].map(Result.getOrThrow)
    assert.deepStrictEqual(
      built.map((transaction) => transaction.key),
      [
        LedgerKeys.depositKey(reference),
        LedgerKeys.holdKey(reference),
        LedgerKeys.settleKey(reference),
        LedgerKeys.returnKey(reference)
      ]
    )
    for (const { key } of built) assert.isAtMost(key.length, LedgerTransaction.MAX_KEY_LENGTH)
    const balanced = [
      { account: Account.providerSettlement("NGN"), amount: dec("-1") },
      { account: Account.userCash(u1, "NGN"), amount: dec("1") }
    ]
    const at = (length: number) =>
      LedgerTransaction.make({ key: "k".repeat(length), kind: "deposit", postings: balanced })
    assert.isTrue(Result.isSuccess(at(LedgerTransaction.MAX_KEY_LENGTH)))
    assert.isTrue(Result.isFailure(at(LedgerTransaction.MAX_KEY_LENGTH + 1)))
    assert.isTrue(Result.isFailure(at(0)))
  })
})
