import { BigDecimal, type Result } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { Currency } from "../money/index.ts"
import * as Account from "./Account.ts"
import type { InvalidTransaction } from "./Errors.ts"
import { depositKey, holdKey, returnKey, settleKey } from "./LedgerKeys.ts"
import * as LedgerTransaction from "./LedgerTransaction.ts"

type Built = Result.Result<LedgerTransaction.LedgerTransaction, InvalidTransaction>

/** An amount of money of a user, moved for the banking reference `reference`. */
interface UserMoney {
  readonly reference: string
  readonly userId: UserId
  readonly currency: Currency
  readonly amount: BigDecimal.BigDecimal
}

/** Money the provider collected for us lands in the user's cash wallet; `reference` is the credit's. */
export const deposit = (options: UserMoney): Built =>
  LedgerTransaction.transfer({
    key: depositKey(options.reference),
    kind: "deposit",
    from: Account.providerSettlement(options.currency),
    to: Account.userCash(options.userId, options.currency),
    amount: options.amount
  })

/**
 * First phase of an outbound transfer: the amount leaves the wallet for the in-flight account, so
 * it cannot be spent twice while the provider works. Fails to post when the wallet is short.
 */
export const hold = (options: UserMoney): Built =>
  LedgerTransaction.transfer({
    key: holdKey(options.reference),
    kind: "transfer.hold",
    from: Account.userCash(options.userId, options.currency),
    to: Account.transfersInFlight(options.currency),
    amount: options.amount
  })

/** The provider paid the transfer out: the held funds go to the provider settlement account. */
export const settle = (options: Omit<UserMoney, "userId">): Built =>
  LedgerTransaction.transfer({
    key: settleKey(options.reference),
    kind: "transfer.settle",
    from: Account.transfersInFlight(options.currency),
    to: Account.providerSettlement(options.currency),
    amount: options.amount
  })

/** The provider failed the transfer: the held funds go back to the wallet they came from. */
export const returnHold = (options: UserMoney): Built =>
  LedgerTransaction.transfer({
    key: returnKey(options.reference),
    kind: "transfer.return",
    from: Account.transfersInFlight(options.currency),
    to: Account.userCash(options.userId, options.currency),
    amount: options.amount
  })

/** A cash prize from the prize pool of its currency. `key` is the spin (or payout) id. */
export const cashPrize = (options: Omit<UserMoney, "reference"> & { readonly key: string }): Built =>
  LedgerTransaction.transfer({
    key: options.key,
    kind: "prize",
    from: Account.cashPrizePool(options.currency),
    to: Account.userCash(options.userId, options.currency),
    amount: options.amount
  })

/** A coin prize from the coin prize pool. */
export const coinPrize = (options: { readonly key: string; readonly userId: UserId; readonly coins: bigint }): Built =>
  LedgerTransaction.transfer({
    key: options.key,
    kind: "prize",
    from: Account.coinPrizePool,
    to: Account.userCoins(options.userId),
    amount: BigDecimal.fromBigInt(options.coins)
  })
