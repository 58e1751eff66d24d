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

  it("refuses an unbalanced transaction", () =>
    refused(
      {
        key: "k",
        kind: "deposit",
        postings: [
          { account: Account.providerSettlement("NGN"), amount: dec("-100") },
          { account: Account.userCash(u1, "NGN"), amount: dec("100.01") }
        ]
      },
      "sum to 0.01"
    ))

  it("refuses to balance one currency against another, or coins against cash", () => {
    refused(
      {
        key: "k",
        kind: "deposit",
        postings: [
          { account: Account.providerSettlement("NGN"), amount: dec("-100") },
          { account: Account.userCash(u1, "USD"), amount: dec("100") }
        ]
      },
      "not 0"
    )
    refused(
      {
        key: "k",
        kind: "prize",
        postings: [
          { account: Account.cashPrizePool("NGN"), amount: dec("-10") },
          { account: Account.userCoins(u1), amount: dec("10") }
        ]
      },
      "not 0"
    )
  })

  it("refuses fewer than two postings, zero postings, bad precision and empty keys", () => {
    refused(
      { key: "k", kind: "deposit", postings: [{ account: Account.userCash("u" as UserId, "NGN"), amount: dec("0") }] },
      "two"
    )
    refused(
      {
        key: "k",
        kind: "deposit",
        postings: [
          { account: Account.providerSettlement("NGN"), amount: dec("0") },
          { account: Account.userCash(u1, "NGN"), amount: dec("0") }
        ]
      },
      "zero posting"
    )
    refused(
      {
        key: "k",
        kind: "deposit",
        postings: [
          { account: Account.providerSettlement("NGN"), amount: dec("-1.005") },
          { account: Account.userCash(u1, "NGN"), amount: dec("1.005") }
        ]
      },
      "decimal"
    )
    refused(
      {
        key: "k",
        kind: "prize",
        postings: [
          { account: Account.coinPrizePool, amount: dec("-0.5") },
          { account: Account.userCoins(u1), amount: dec("0.5") }
        ]
      },
      "decimal"
    )
    refused(
      {
        key: "",
        kind: "deposit",
        postings: [
          { account: Account.providerSettlement("NGN"), amount: dec("-1") },
          { account: Account.userCash(u1, "NGN"), amount: dec("1") }
        ]
      },
      "key"
    )
  })

  it("builds the two-phase transfer movements with their keys and accounts", () => {
    const hold = Result.getOrThrow(Movements.hold({ reference: "R1", userId: u1, currency: "NGN", amount: dec("25") }))
    assert.strictEqual(hold.key, "transfer:R1:hold")
    assert.deepStrictEqual(
      hold.postings.map((p) => [p.account.id, BigDecimal.format(p.amount)]),
      [
        ["user:u1:cash:NGN", "-25"],
        ["system:transfers-in-flight:NGN", "25"]
      ]
    )
    const settle = Result.getOrThrow(Movements.settle({ reference: "R1", currency: "NGN", amount: dec("25") }))
    assert.strictEqual(settle.key, "transfer:R1:settle")
    assert.deepStrictEqual(
      settle.postings.map((p) => p.account.id),
      ["system:transfers-in-flight:NGN", "system:provider-settlement:NGN"]
    )
    const back = Result.getOrThrow(
      Movements.returnHold({ reference: "R1", userId: u1, currency: "NGN", amount: dec("25") })
    )
    assert.strictEqual(back.key, "transfer:R1:return")
    assert.deepStrictEqual(
      back.postings.map((p) => p.account.id),
      ["system:transfers-in-flight:NGN", "user:u1:cash:NGN"]
    )
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
    const postings = [
      { account: Account.providerSettlement("NGN"), amount: dec("-1") },
      { account: Account.userCash(u1, "NGN"), amount: dec("1") }
    ]
    const at = (length: number) => LedgerTransaction.make({ key: "k".repeat(length), kind: "deposit", postings })
    assert.isTrue(Result.isSuccess(at(LedgerTransaction.MAX_KEY_LENGTH)))
    assert.isTrue(Result.isFailure(at(LedgerTransaction.MAX_KEY_LENGTH + 1)))
    assert.isTrue(Result.isFailure(at(0)))
  })
})
