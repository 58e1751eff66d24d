import type { Notice } from "@payments-gaming/domain/ledger"
import type { OutboxEvent } from "@payments-gaming/domain/notifications"
import { Effect } from "effect"
import type { SqlClient, Statement } from "effect/sql"

/** What `outboxRows` writes of an event, named as the slots of a statement template that holds it. */
export const OUTBOX_SLOTS = [
  "outboxEventKey",
  "outboxUserId",
  "outboxTemplateCode",
  "outboxTitle",
  "outboxBody"
] as const
export type OutboxSlot = (typeof OUTBOX_SLOTS)[number]

/** The values of `outboxRows`' fields for `event`. */
export const outboxValues = (event: OutboxEvent): Record<OutboxSlot, string> => ({
  outboxEventKey: event.eventKey,
  outboxUserId: event.userId,
  outboxTemplateCode: event.content.templateCode,
  outboxTitle: event.content.title,
  outboxBody: event.content.body
})

/**
 * The INSERT that writes an event's notification into `notification_outbox`: a row per active
 * device of its user, none again for a device that has one for this event. `fields` are the
 * event's values (`outboxValues`) or a statement template's slots of the same names. `when`, a
 * condition, gates it: a statement that posts a ledger transaction first notifies only when that
 * is new (`LedgerRecorderPostgres`). Used by `NotificationOutboxPostgres.enqueue` and by those statements.
 */
export const outboxRows = (
  sql: SqlClient.SqlClient,
  fields: Readonly<Record<OutboxSlot, string>>,
  when?: Statement.Fragment
) =>
  sql`INSERT INTO notification_outbox (event_key, device_id, user_id, template_code, title, body)
          SELECT ${fields.outboxEventKey}, d.id, d.user_id, ${fields.outboxTemplateCode}, ${fields.outboxTitle}, ${fields.outboxBody}
          FROM user_devices d WHERE d.user_id = ${fields.outboxUserId} AND d.active${when === undefined ? sql`` : sql` AND ${when}`}
          ON CONFLICT (event_key, device_id) DO NOTHING`

/** A `Notice` of the PostgreSQL outbox: the event's values, for the ledger's statement to write with `outboxRows`. */
interface OutboxNotice extends Notice {
  readonly implementation: "postgres"
  readonly values: Record<OutboxSlot, string>
}

/** `NotificationOutboxPostgres.notice`: `event` as the ledger writes it after a new posting. */
export const outboxNotice = (event: OutboxEvent): Notice => {
  const notice: OutboxNotice = { implementation: "postgres", values: outboxValues(event) }
  return notice
}

/** The values of an `outboxNotice`, or a defect: a notice of another implementation cannot be written here. */
export const noticeValues = (notice: Notice): Effect.Effect<Record<OutboxSlot, string>> =>
  notice.implementation === "postgres"
    ? Effect.succeed((notice as OutboxNotice).values)
    : Effect.die(new Error(`the PostgreSQL outbox cannot write a ${notice.implementation} notice`))
