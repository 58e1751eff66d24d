import { BigDecimal, Result, Schema } from "effect"
import { Money, type Unit } from "../money/index.ts"
import { Account } from "./Account.ts"
import { InvalidTransaction } from "./Errors.ts"

/**
 * What a movement is for. The idempotency key says which one; the kind lets reports group them.
 * `prize` covers wheel and trivia payouts in coins or cash.
 */
export const TransactionKind = Schema.Literals([
  "deposit",
  "transfer.hold",
  "transfer.settle",
  "transfer.return",
  "prize"
])
export type TransactionKind = typeof TransactionKind.Type

/** One side of a movement: a positive amount increases the account's balance, a negative one lowers it. */
export const Posting = Schema.Struct({
  account: Account,
  amount: Schema.BigDecimal
})
export type Posting = typeof Posting.Type

declare const Balanced: unique symbol

/**
 * An immutable double-entry movement: two or more postings summing to zero per unit, each amount
 * exact in its unit's minor unit, under an idempotency key that makes posting it twice a no-op.
 * Only `make` (and the builders in Movements) produce one, so holding a value proves it is balanced.
 */
export interface LedgerTransaction {
  readonly key: string
  readonly kind: TransactionKind
  readonly postings: ReadonlyArray<Posting>
  readonly [Balanced]: true
}

export interface LedgerTransactionInput {
  readonly key: string
  readonly kind: TransactionKind
  readonly postings: ReadonlyArray<Posting>
}

const invalid = (key: string, message: string) => Result.fail(new InvalidTransaction({ key, message }))

/** A posting's amount in its account unit's minor units; postings of a made transaction always convert. */
export const postingMinorUnits = (posting: Posting): bigint =>
  Result.getOrThrow(Money.toMinorUnits(Money.make(posting.account.unit, posting.amount)))

/**
 * Longest idempotency key, as `ledger_transactions_key_length` checks it (migration 0008). Room for
 * the longest reference (256 characters) behind the longest prefix Movements gives it; a test
 * builds every reference-derived key at that length.
 */
export const MAX_KEY_LENGTH = 512

export const make = (input: LedgerTransactionInput): Result.Result<LedgerTransaction, InvalidTransaction> => {
  const key = input.key
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    return invalid(key, `the idempotency key must have 1 to ${MAX_KEY_LENGTH} characters`)
  }
  if (input.postings.length < 2) return invalid(key, "a transaction needs at least two postings")
  const sums = new Map<Unit, bigint>()
  for (const posting of input.postings) {
    if (BigDecimal.isZero(posting.amount)) return invalid(key, `a zero posting to ${posting.account.id}`)
    const minor = Money.toMinorUnits(Money.make(posting.account.unit, posting.amount))
    if (Result.isFailure(minor)) return invalid(key, minor.failure.message)
    sums.set(posting.account.unit, (sums.get(posting.account.unit) ?? 0n) + minor.success)
  }
  for (const [unit, sum] of sums) {
    if (sum !== 0n) return invalid(key, `postings in ${unit} sum to ${Money.formatMinorUnits(unit, sum)}, not 0`)
  }
  return Result.succeed({ key, kind: input.kind, postings: input.postings } as LedgerTransaction)
}

/** `amount` from one account to another: the common two-posting case. */
export const transfer = (options: {
  readonly key: string
  readonly kind: TransactionKind
  readonly from: Account
  readonly to: Account
  readonly amount: BigDecimal.BigDecimal
}): Result.Result<LedgerTransaction, InvalidTransaction> =>
  !BigDecimal.isPositive(options.amount)
    ? invalid(options.key, `a transfer moves a positive amount, not ${BigDecimal.format(options.amount)}`)
    : make({
        key: options.key,
        kind: options.kind,
        postings: [
          { account: options.from, amount: BigDecimal.negate(options.amount) },
          { account: options.to, amount: options.amount }
        ]
      })
