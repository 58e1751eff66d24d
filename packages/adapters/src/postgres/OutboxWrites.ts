import type { OutboxEvent } from "@payments-gaming/domain/notifications"
import type { SqlClient, Statement } from "effect/sql"

/**
 * The INSERT that writes an event's notification into `notification_outbox`: a row per active
 * device of its user, none again for a device that has one for this event. `when`, a condition,
 * gates it: a statement that posts a ledger transaction first notifies only when that is new
 * (`NotifiedPosting`). Used by `NotificationOutboxPostgres.enqueue` and by those statements.
 */
export const outboxRows = (sql: SqlClient.SqlClient, event: OutboxEvent, when?: Statement.Fragment) =>
  sql`INSERT INTO notification_outbox (event_key, device_id, user_id, template_code, title, body)
          SELECT ${event.eventKey}, d.id, d.user_id, ${event.content.templateCode}, ${event.content.title}, ${event.content.body}
          FROM user_devices d WHERE d.user_id = ${event.userId} AND d.active${when === undefined ? sql`` : sql` AND ${when}`}
          ON CONFLICT (event_key, device_id) DO NOTHING`
