import { Schema } from "effect"
import { UserId } from "../auth/Model.ts"
import { COIN, type Currency, Unit } from "../money/index.ts"

/**
 * A ledger account. User accounts belong to `userId` and may never go negative; system accounts
 * (`userId` null) are the other side of every movement and may: the provider settlement account
 * goes negative by exactly what the provider owes us, a prize pool by what it has paid out.
 */
export const Account = Schema.Struct({
  id: Schema.String,
  unit: Unit,
  userId: Schema.NullOr(UserId)
})
export type Account = typeof Account.Type

export const isUserAccount = (account: Account): boolean => account.userId !== null

/** `user:<id>:cash:<CUR>`: the user's wallet in one currency. */
export const userCash = (userId: UserId, currency: Currency): Account => ({
  id: `user:${userId}:cash:${currency}`,
  unit: currency,
  userId
})

/** `user:<id>:coins`: the user's wheel coins. */
export const userCoins = (userId: UserId): Account => ({ id: `user:${userId}:coins`, unit: COIN, userId })

/** What the provider has collected for us and owes us (deposits) or paid out for us (transfers). */
export const providerSettlement = (currency: Currency): Account => ({
  id: `system:provider-settlement:${currency}`,
  unit: currency,
  userId: null
})

/** Funds held for outbound transfers the provider has not settled or failed yet. */
export const transfersInFlight = (currency: Currency): Account => ({
  id: `system:transfers-in-flight:${currency}`,
  unit: currency,
  userId: null
})

/** Source of cash prizes (wheel, trivia) in one currency. */
export const cashPrizePool = (currency: Currency): Account => ({
  id: `system:prize-pool:cash:${currency}`,
  unit: currency,
  userId: null
})

/** Source of coin prizes. */
export const coinPrizePool: Account = { id: "system:prize-pool:coins", unit: COIN, userId: null }
