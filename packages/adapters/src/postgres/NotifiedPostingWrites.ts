import type { NotifiedPosting } from "@payments-gaming/domain/notifications"
import type { SqlClient, Statement } from "effect/sql"
import { creditParts } from "./LedgerWrites.ts"
import { outboxRows } from "./OutboxWrites.ts"

/**
 * The common table expressions that write a `NotifiedPosting` inside the statement of what caused it
 * (`WebhookInboxPostgres.store`, `SpinRepository.record`): the posting gated by `when` (the cause's
 * row being new), and its notification (`notified`) gated by the posting's key row `tx` being new.
 */
export const notifiedPostingParts = (
  sql: SqlClient.SqlClient,
  { transaction, notification }: NotifiedPosting,
  when: Statement.Fragment
): Array<Statement.Fragment> => {
  const parts = creditParts(sql, transaction, when)
  if (notification !== undefined) {
    parts.push(sql`notified AS (${outboxRows(sql, notification, sql`EXISTS (SELECT 1 FROM tx)`)})`)
  }
  return parts
}
