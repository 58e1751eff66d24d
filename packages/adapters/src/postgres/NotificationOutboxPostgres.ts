import { UserId } from "@payments-gaming/domain/auth"
import {
  type AttemptFacts,
  type AttemptOutcome,
  type ClaimedNotification,
  NotificationOutbox,
  type NotificationView,
  type OutboxEvent,
  OutboxStatus,
  TemplateCode
} from "@payments-gaming/domain/notifications"
import { TokenType } from "@payments-gaming/domain/push"
import { Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { durably } from "./DurableWrite.ts"
import { outboxNotice, outboxRows, outboxValues } from "./OutboxWrites.ts"
import { rowSchema } from "./RowSchema.ts"

const ViewColumns = Schema.Struct({
  id: Schema.String,
  event_key: Schema.String,
  user_id: Schema.String,
  device_id: Schema.String,
  template_code: TemplateCode,
  title: Schema.String,
  body: Schema.String,
  status: OutboxStatus,
  attempts: Schema.Number,
  next_attempt_at: Schema.Date,
  last_error: Schema.NullOr(Schema.String),
  provider_message_id: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date,
  send_started_at: Schema.NullOr(Schema.Date),
  in_doubt: Schema.Boolean,
  resends: Schema.Number,
  deliveries: Schema.Array(
    Schema.Struct({
      at: Schema.String,
      device_id: Schema.NullOr(Schema.String),
      provider: Schema.String,
      success: Schema.Boolean,
      error_code: Schema.NullOr(Schema.String),
      error_message: Schema.NullOr(Schema.String),
      provider_message_id: Schema.NullOr(Schema.String),
      collapse_key: Schema.NullOr(Schema.String),
      resend: Schema.NullOr(Schema.Boolean)
    })
  )
})

/** A `notification_outbox` row as operators see it. */
const NotificationViewRow = rowSchema(
  ViewColumns,
  (row): NotificationView => ({
    id: row.id,
    eventKey: row.event_key,
    userId: row.user_id,
    deviceId: row.device_id,
    templateCode: row.template_code,
    title: row.title,
    body: row.body,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at.toISOString(),
    lastError: row.last_error,
    providerMessageId: row.provider_message_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    resends: row.resends,
    inDoubt: row.in_doubt,
    unconfirmed: row.send_started_at !== null,
    deliveries: row.deliveries.map((delivery) => ({
      at: delivery.at,
      deviceId: delivery.device_id,
      provider: delivery.provider,
      success: delivery.success,
      errorCode: delivery.error_code,
      errorMessage: delivery.error_message,
      providerMessageId: delivery.provider_message_id,
      collapseKey: delivery.collapse_key,
      resend: delivery.resend === true
    }))
  })
)

/** A claimed row with its device as `user_devices` holds it now (all null when it is gone). */
const ClaimedRow = rowSchema(
  Schema.Struct({
    id: Schema.String,
    claim_id: Schema.String,
    event_key: Schema.String,
    user_id: UserId,
    device_id: Schema.String,
    template_code: TemplateCode,
    title: Schema.String,
    body: Schema.String,
    attempts: Schema.Number,
    in_doubt: Schema.Boolean,
    token_type: Schema.NullOr(TokenType),
    token: Schema.NullOr(Schema.String),
    active: Schema.NullOr(Schema.Boolean),
    device_user_id: Schema.NullOr(Schema.String)
  }),
  (row): ClaimedNotification => ({
    id: row.id,
    claimId: row.claim_id,
    eventKey: row.event_key,
    userId: row.user_id,
    deviceId: row.device_id,
    templateCode: row.template_code,
    title: row.title,
    body: row.body,
    attempts: row.attempts,
    inDoubt: row.in_doubt,
    device:
      row.token_type === null || row.token === null || row.device_user_id === null
        ? null
        : {
            deviceId: row.device_id,
            userId: row.device_user_id,
            tokenType: row.token_type,
            token: Redacted.make(row.token),
            active: row.active === true
          }
  })
)

const StatsRow = Schema.Struct({ depth: Schema.Number, oldest_due_seconds: Schema.NullOr(Schema.Number) })

// Ids come from operators; a non-UUID names no row and must not reach a uuid comparison.
const uuid = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/**
 * The outbox in `notification_outbox` (migrations 0015, 0016), on the ambient SqlClient: inside a unit of
 * work its statements join that transaction. Database failures are defects, as in the ledger: the
 * caller's transaction has failed, and the worker logs and polls again. Times are the database's
 * (`now()`), so every instance agrees on what is due and when a lease ends.
 */
export const layer: Layer.Layer<NotificationOutbox, never, SqlClient.SqlClient> = Layer.effect(
  NotificationOutbox,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // One plain statement, no schema work (the same INSERT a credit's or a spin's own statement
    // carries: OutboxWrites.ts). The user's active devices are read inside the replay's
    // transaction, and (event, device) makes it idempotent.
    const enqueue = (event: OutboxEvent) =>
      sql<{ readonly id: string }>`${outboxRows(sql, outboxValues(event))} RETURNING id`.pipe(
        Effect.map((rows) => rows.length),
        Effect.orDie
      )

    // One statement: lock up to `limit` due rows nobody holds (SKIP LOCKED: a row another instance
    // is claiming is passed over, never waited for), stamp them with this claim and its lease, and
    // return them with their device's current token. Rows under a live lease are not due; a row
    // whose worker died becomes due when its lease ends.
    // The claim's id is made once, in a CTE of its own: `gen_random_uuid()` in a FROM subquery
    // was evaluated per row, giving each row a claim of its own, so releasing "the claim" gave
    // back one row of the batch.
    const claimDue = SqlSchema.findAll({
      Request: Schema.Struct({ limit: Schema.Number, leaseMillis: Schema.Number }),
      Result: ClaimedRow,
      execute: ({ limit, leaseMillis }) => sql`WITH c AS MATERIALIZED (SELECT gen_random_uuid() AS claim_id), due AS (
            SELECT id FROM notification_outbox
            WHERE status = 'pending' AND next_attempt_at <= now()
              AND (claimed_until IS NULL OR claimed_until < now())
            ORDER BY next_attempt_at
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED
          ), claimed AS (
            UPDATE notification_outbox o
            SET claim_id = c.claim_id,
                claimed_until = now() + ${leaseMillis}::integer * interval '1 millisecond',
                updated_at = now(),
                -- A lease that ran out mid-send (sent-unconfirmed): that send was an attempt, and
                -- may have reached the provider, so the next one is a resend.
                attempts = o.attempts + CASE WHEN o.send_started_at IS NULL THEN 0 ELSE 1 END,
                in_doubt = o.in_doubt OR o.send_started_at IS NOT NULL,
                send_started_at = NULL
            FROM due, c
            WHERE o.id = due.id
            RETURNING o.*
          )
          SELECT claimed.id, claimed.claim_id, claimed.event_key, claimed.user_id, claimed.device_id,
            claimed.template_code, claimed.title, claimed.body, claimed.attempts, claimed.in_doubt,
            d.token_type, d.token, d.active, d.user_id AS device_user_id
          FROM claimed LEFT JOIN user_devices d ON d.id = claimed.device_id
          ORDER BY claimed.next_attempt_at`
    })

    // Idempotent by claim: once recorded the row is no longer held, and running it again (after a
    // dropped connection, `durably`) changes nothing.
    const record = (notification: ClaimedNotification, outcome: AttemptOutcome, facts: AttemptFacts) => {
      const held = sql`id = ${notification.id}::uuid AND claim_id = ${notification.claimId}::uuid`
      const resent = facts.pushed && notification.inDoubt ? 1 : 0
      const released = sql`claim_id = NULL, claimed_until = NULL, updated_at = now(), send_started_at = NULL,
        in_doubt = in_doubt OR ${facts.inDoubt}, resends = resends + ${resent}::integer`
      switch (outcome._tag) {
        case "Sent":
          return sql`UPDATE notification_outbox SET ${released}, status = 'sent', attempts = attempts + 1,
              provider_message_id = ${outcome.providerMessageId}, last_error = NULL, sent_at = now()
              WHERE ${held}`
        case "Retry":
          return sql`UPDATE notification_outbox SET ${released}, attempts = attempts + 1, last_error = ${outcome.error},
              next_attempt_at = now() + ${Math.round(outcome.delayMillis)}::integer * interval '1 millisecond'
              WHERE ${held}`
        case "Failed":
          return sql`UPDATE notification_outbox SET ${released}, status = 'failed', attempts = attempts + 1,
              last_error = ${outcome.error} WHERE ${held}`
        case "Cancelled":
          return sql`UPDATE notification_outbox SET ${released}, status = 'cancelled',
              attempts = attempts + ${outcome.attempted ? 1 : 0}, last_error = ${outcome.reason} WHERE ${held}`
      }
    }

    // Every send of the row, oldest first, from the delivery log.
    const withDeliveries = (alias: string) =>
      sql`${sql.literal(alias)}.*, (SELECT coalesce(json_agg(json_build_object(
          'at', to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'device_id', d.device_id, 'provider', d.provider, 'success', d.success, 'error_code', d.error_code,
          'error_message', d.error_message, 'provider_message_id', d.provider_message_id,
          'collapse_key', d.collapse_key, 'resend', d.resend) ORDER BY d.id), '[]'::json)
        FROM push_deliveries d WHERE d.notification_id = ${sql.literal(alias)}.id) AS deliveries`

    const listAll = SqlSchema.findAll({
      Request: Schema.Struct({ limit: Schema.Number, offset: Schema.Number }),
      Result: NotificationViewRow,
      execute: ({ limit, offset }) => sql`SELECT ${withDeliveries("o")} FROM notification_outbox o
          ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`
    })
    const listByStatus = SqlSchema.findAll({
      Request: Schema.Struct({ status: OutboxStatus, limit: Schema.Number, offset: Schema.Number }),
      Result: NotificationViewRow,
      execute: ({ status, limit, offset }) => sql`SELECT ${withDeliveries("o")} FROM notification_outbox o
          WHERE status = ${status} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`
    })
    const findById = SqlSchema.findOneOption({
      Request: Schema.String,
      Result: NotificationViewRow,
      execute: (id) => sql`SELECT ${withDeliveries("o")} FROM notification_outbox o WHERE id = ${id}::uuid`
    })
    const requeueById = SqlSchema.findOneOption({
      Request: Schema.Struct({ id: Schema.String, status: OutboxStatus }),
      Result: NotificationViewRow,
      execute: ({ id, status }) => sql`WITH r AS (UPDATE notification_outbox
          SET status = 'pending', attempts = 0, next_attempt_at = now(), claim_id = NULL, claimed_until = NULL,
            send_started_at = NULL, updated_at = now()
          WHERE id = ${id}::uuid AND status = ${status}
          RETURNING *) SELECT ${withDeliveries("r")} FROM r`
    })

    const stats = SqlSchema.findOne({
      Request: Schema.Void,
      Result: StatsRow,
      execute: () => sql`SELECT count(*)::integer AS depth,
            (extract(epoch FROM now() - min(next_attempt_at) FILTER (WHERE next_attempt_at <= now())))::float8
              AS oldest_due_seconds
          FROM notification_outbox WHERE status = 'pending'`
    })(undefined).pipe(
      Effect.map((row) => ({ depth: row.depth, oldestDueSeconds: Math.max(0, row.oldest_due_seconds ?? 0) })),
      Effect.orDie
    )

    return NotificationOutbox.of({
      enqueue,
      notice: outboxNotice,
      claimDue: ({ limit, lease }) =>
        Effect.orDie(claimDue({ limit, leaseMillis: Math.max(1, Math.round(Duration.toMillis(lease))) })),
      markSending: (claimId, ids) =>
        ids.length === 0
          ? Effect.void
          : Effect.orDie(
              Effect.asVoid(
                durably(
                  sql`UPDATE notification_outbox SET send_started_at = now()
                    WHERE claim_id = ${claimId}::uuid AND id IN ${sql.in(ids)}`,
                  "notifications about to be sent"
                )
              )
            ),
      record: (notification, outcome, facts) =>
        Effect.orDie(Effect.asVoid(durably(record(notification, outcome, facts), "a notification attempt"))),
      // Rows marked as being sent are not given back: their push may have left. They wait out their
      // lease, sent-unconfirmed, and the next claim resends them as possible duplicates.
      release: (claimId) =>
        uuid.test(claimId)
          ? Effect.orDie(
              Effect.asVoid(sql`UPDATE notification_outbox SET claim_id = NULL, claimed_until = NULL, updated_at = now()
                WHERE claim_id = ${claimId}::uuid AND send_started_at IS NULL`)
            )
          : Effect.void,
      cancelForDevice: (deviceId, reason) =>
        sql<{ readonly id: string }>`UPDATE notification_outbox
            SET status = 'cancelled', last_error = ${reason}, updated_at = now()
            WHERE device_id = ${deviceId}::uuid AND status = 'pending' AND claim_id IS NULL
            RETURNING id`.pipe(
          Effect.map((rows) => rows.length),
          Effect.orDie
        ),
      list: ({ status, limit, offset }) =>
        Effect.orDie(status === undefined ? listAll({ limit, offset }) : listByStatus({ status, limit, offset })),
      find: (id) => (uuid.test(id) ? Effect.orDie(findById(id)) : Effect.succeed(Option.none())),
      requeue: (id, status) =>
        uuid.test(id) ? Effect.orDie(requeueById({ id, status })) : Effect.succeed(Option.none()),
      requeueAll: (status) =>
        sql<{ readonly id: string }>`UPDATE notification_outbox
            SET status = 'pending', attempts = 0, next_attempt_at = now(), claim_id = NULL, claimed_until = NULL,
              send_started_at = NULL, updated_at = now()
            WHERE status = ${status}
            RETURNING id`.pipe(
          Effect.map((rows) => rows.map((row) => row.id)),
          Effect.orDie
        ),
      stats
    })
  })
)
