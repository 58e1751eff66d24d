/*
 * How a provider reference becomes a key: here and nowhere else. These texts are stored in
 * production (ledger_transactions.idempotency_key, webhook_events.dedup_key), so they never change;
 * test/ledger/LedgerKeys.test.ts pins each one. A reference may be 256 characters long (banking's
 * `Reference`), and every ledger key below must still fit `MAX_KEY_LENGTH`
 * (test/ledger/LedgerTransaction.test.ts builds each at that length).
 */

/** Deduplication key of a webhook event: its kind (banking's `EventKind`) and the provider's reference. */
export const webhookKey = (kind: string, reference: string): string => `${kind}:${reference}`

/** Ledger key of a credit: the same text as the credit event's `webhookKey`, as it has been since the first credit. */
export const depositKey = (reference: string): string => webhookKey("virtualaccount.credit", reference)
/** Ledger key of the hold that reserves an outbound transfer's amount. */
export const holdKey = (reference: string): string => `transfer:${reference}:hold`
/** Ledger key of the settlement of a transfer the provider paid out. */
export const settleKey = (reference: string): string => `transfer:${reference}:settle`
/** Ledger key of the return of a failed transfer's hold to the wallet. */
export const returnKey = (reference: string): string => `transfer:${reference}:return`

const DEPOSIT_PREFIX = depositKey("")
const TRANSFER_PREFIX = "transfer:"
const transferSuffix = { "transfer.hold": ":hold", "transfer.settle": ":settle", "transfer.return": ":return" } as const

/**
 * The reference a stored key was made from, read back by its transaction's kind (`TransactionKind`
 * of LedgerTransaction.ts): the bank reference of a deposit, the transfer reference of a hold,
 * settlement or return, and the key itself for a prize (its spin or payout id). The inverse of the
 * builders above, kept beside them so the two cannot drift; a key not shaped as its kind's builder
 * makes it is returned whole rather than cut wrongly.
 */
export const referenceOf = (kind: string, key: string): string => {
  if (kind === "deposit") return key.startsWith(DEPOSIT_PREFIX) ? key.slice(DEPOSIT_PREFIX.length) : key
  if (kind === "transfer.hold" || kind === "transfer.settle" || kind === "transfer.return") {
    const suffix = transferSuffix[kind]
    return key.startsWith(TRANSFER_PREFIX) &&
      key.endsWith(suffix) &&
      key.length > TRANSFER_PREFIX.length + suffix.length
      ? key.slice(TRANSFER_PREFIX.length, key.length - suffix.length)
      : key
  }
  return key
}
