import type { SqlClient, Statement } from "effect/sql"
import { LEDGER_SLOTS, type LedgerSlot, recordParts } from "./LedgerWrites.ts"
import { OUTBOX_SLOTS, type OutboxSlot, outboxRows } from "./OutboxWrites.ts"
import type { Slots } from "./StatementTemplate.ts"

/**
 * The slots of `notifiedPostingParts` with a notification: the posting's, then the notification's.
 * Without one they are `LedgerWrites.LEDGER_SLOTS`.
 */
export const NOTIFIED_POSTING_SLOTS = [...LEDGER_SLOTS, ...OUTBOX_SLOTS] as const

/**
 * The common table expressions that write a `NotifiedPosting` inside the statement template of what
 * caused it (`WebhookInboxPostgres.store`, `SpinRepository.record`): the posting gated by `when`
 * (the cause's row being new), and its notification (`notified`) gated by the posting's key row
 * `tx` being new. A posting without a notification is its own template, with only the ledger's
 * slots. The values are `LedgerWrites.creditValues` and `OutboxWrites.outboxValues`.
 */
export const notifiedPostingParts = (
  sql: SqlClient.SqlClient,
  posting: Slots<LedgerSlot>,
  notification: Slots<OutboxSlot> | undefined,
  when: Statement.Fragment
): Array<Statement.Fragment> => {
  const parts = recordParts(sql, posting, true, when)
  if (notification !== undefined) {
    parts.push(sql`notified AS (${outboxRows(sql, notification, sql`EXISTS (SELECT 1 FROM tx)`)})`)
  }
  return parts
}
