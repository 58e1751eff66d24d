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
