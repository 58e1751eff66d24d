import { BigDecimal, Option, Result } from "effect"
import type { UserId } from "../auth/Model.ts"
import { type Currency, isCurrency, Money } from "../money/index.ts"
import type { Transfer, VirtualAccount } from "./Model.ts"
import type { CreditPayload, TransferPayload } from "./WebhookPayload.ts"

/**
 * The verdict on a decoded event. `Reject`: the event breaks a rule and never applies as sent
 * (stored as `rejected`). `Unmatched`: it names an account or transfer we do not know yet (stored
 * as `unmatched`, replayable once an operator links it). Neither moves money.
 */
export type Decision<A> =
  | { readonly _tag: "Accept"; readonly action: A }
  | { readonly _tag: "Reject"; readonly reason: string }
  | { readonly _tag: "Unmatched"; readonly reason: string }

const accept = <A>(action: A): Decision<A> => ({ _tag: "Accept", action })
const reject = (reason: string): Decision<never> => ({ _tag: "Reject", reason })
const unmatched = (reason: string): Decision<never> => ({ _tag: "Unmatched", reason })

const present = (value: string | null | undefined): value is string =>
  value !== null && value !== undefined && value !== ""

/** The receiving account: `virtualAccountNumber`, else `data.virtual_account_number`, else `data.account_number`. */
export const creditAccountNumber = (payload: {
  readonly virtualAccountNumber: string | null
  readonly data: { readonly virtual_account_number: string | null; readonly account_number: string }
}): string =>
  present(payload.virtualAccountNumber)
    ? payload.virtualAccountNumber
    : present(payload.data.virtual_account_number)
      ? payload.data.virtual_account_number
      : payload.data.account_number

const show = BigDecimal.format

/** Fails with a reason when `amount` has more decimals than `currency` allows. */
const checkScale = (field: string, currency: Currency, amount: BigDecimal.BigDecimal): string | undefined => {
  const minor = Money.toMinorUnits(Money.make(currency, amount))
  return Result.isFailure(minor) ? `${field} ${minor.failure.message}` : undefined
}

const firstBroken = (...checks: ReadonlyArray<() => string | undefined>): string | undefined => {
  for (const check of checks) {
    const reason = check()
    if (reason !== undefined) return reason
  }
  return undefined
}

export interface CreditAction {
  readonly userId: UserId
  readonly accountNumber: string
  readonly currency: Currency
  /** What lands in the wallet: `settled_amount`. */
  readonly amount: BigDecimal.BigDecimal
}

/**
 * Rules of a virtual-account credit (CONTRACT §3 step 5). Rules on the event alone are checked
 * before the account, so an event that could never apply is rejected, not left waiting as unmatched.
 */
export const decideCredit = (
  payload: CreditPayload,
  account: Option.Option<VirtualAccount>
): Decision<CreditAction> => {
  const { data } = payload
  const currency = data.currency
  const envelope = firstBroken(
    () => (payload.type === "VIRTUAL-ACCOUNT" ? undefined : `type is ${payload.type}, expected VIRTUAL-ACCOUNT`),
    () =>
      payload.event === "VIRTUAL-ACCOUNT-INFLOW"
        ? undefined
        : `event is ${payload.event}, expected VIRTUAL-ACCOUNT-INFLOW`,
    () => (data.status === "SUCCESSFUL" ? undefined : `data.status is ${data.status}, expected SUCCESSFUL`),
    () => (data.type === "CREDIT" ? undefined : `data.type is ${data.type}, expected CREDIT`),
    () => (isCurrency(currency) ? undefined : `currency ${currency} is not supported`)
  )
  if (envelope !== undefined || !isCurrency(currency))
    return reject(envelope ?? `currency ${currency} is not supported`)
  const broken = firstBroken(
    () => (BigDecimal.isPositive(data.amount) ? undefined : `amount ${show(data.amount)} is not greater than 0`),
    () => (BigDecimal.isNegative(data.fee) ? `fee ${show(data.fee)} is negative` : undefined),
    () =>
      BigDecimal.equals(data.settled_amount, BigDecimal.subtract(data.amount, data.fee))
        ? undefined
        : `settled_amount ${show(data.settled_amount)} is not amount ${show(data.amount)} minus fee ${show(data.fee)}`,
    () =>
      BigDecimal.isPositive(data.settled_amount)
        ? undefined
        : `settled_amount ${show(data.settled_amount)} leaves nothing to credit`,
    () => checkScale("amount", currency, data.amount),
    () => checkScale("fee", currency, data.fee),
    () => checkScale("settled_amount", currency, data.settled_amount)
  )
  if (broken !== undefined) return reject(broken)
  const accountNumber = creditAccountNumber(payload)
  if (Option.isNone(account)) return unmatched(`no virtual account ${accountNumber} is linked`)
  if (account.value.currency !== currency) {
    return reject(`currency ${currency} differs from account ${accountNumber}'s ${account.value.currency}`)
  }
  return accept({
    userId: account.value.userId,
    accountNumber,
    currency: account.value.currency,
    amount: data.settled_amount
  })
}

export type TransferAction =
  | { readonly _tag: "Settle"; readonly transfer: Transfer }
  | { readonly _tag: "Return"; readonly transfer: Transfer }
  /** The transfer is already final in the state the event reports: acknowledge, move nothing. */
  | { readonly _tag: "AlreadyFinal"; readonly transfer: Transfer }

/** Rules of `transfer.success` / `transfer.failed` (CONTRACT §3 step 5). */
export const decideTransfer = (
  kind: "transfer.success" | "transfer.failed",
  payload: TransferPayload,
  transfer: Option.Option<Transfer>
): Decision<TransferAction> => {
  const { data } = payload
  const success = kind === "transfer.success"
  const expectedEvent = success ? "TRANSFER-SUCCESS" : "TRANSFER-FAILED"
  const expectedStatus = success ? "SUCCESSFUL" : "FAILED"
  const broken = firstBroken(
    () => (payload.type === "TRANSFER" ? undefined : `type is ${payload.type}, expected TRANSFER`),
    () => (payload.event === expectedEvent ? undefined : `event is ${payload.event}, expected ${expectedEvent}`),
    () => (data.type === "DEBIT" ? undefined : `data.type is ${data.type}, expected DEBIT`),
    () => (data.status === expectedStatus ? undefined : `data.status is ${data.status}, expected ${expectedStatus}`),
    () => (BigDecimal.isPositive(data.amount) ? undefined : `amount ${show(data.amount)} is not greater than 0`),
    () => (data.fee !== undefined && BigDecimal.isNegative(data.fee) ? `fee ${show(data.fee)} is negative` : undefined)
  )
  if (broken !== undefined) return reject(broken)
  if (Option.isNone(transfer)) return unmatched(`no outbound transfer ${data.reference} is recorded`)
  const found = transfer.value
  if (data.currency !== found.currency) {
    return reject(`currency ${data.currency} differs from transfer ${found.reference}'s ${found.currency}`)
  }
  if (!BigDecimal.equals(data.amount, found.amount)) {
    return reject(
      `amount ${show(data.amount)} differs from the held ${Money.format(Money.make(found.currency, found.amount))}`
    )
  }
  const target = success ? "SETTLED" : "FAILED"
  if (found.status === "PENDING") return accept({ _tag: success ? "Settle" : "Return", transfer: found })
  if (found.status === target) return accept({ _tag: "AlreadyFinal", transfer: found })
  return reject(`transfer ${found.reference} is already ${found.status}`)
}
