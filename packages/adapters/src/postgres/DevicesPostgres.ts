import { randomUUID } from "node:crypto"
import { UserId } from "@payments-gaming/domain/auth"
import {
  DeviceId,
  DeviceNotFound,
  type DeviceRegistered,
  type DeviceRegistration,
  Devices,
  type DeviceView,
  logRegistered,
  REMOVED_BY_USER,
  TokenType
} from "@payments-gaming/domain/devices"
import { Effect, Layer, Redacted, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { rowSchema } from "./RowSchema.ts"

const deviceColumns = {
  id: DeviceId,
  tokenType: TokenType,
  tokenLast8: Schema.String,
  platform: Schema.NullOr(Schema.String),
  createdAt: Schema.DateTimeUtcFromDate
}

const viewOf = (row: Schema.Struct.Type<typeof deviceColumns>): DeviceView => ({
  deviceId: row.id,
  tokenType: row.tokenType,
  tokenLast8: row.tokenLast8,
  platform: row.platform,
  createdAt: row.createdAt
})

/** A row of `user_devices` as `columns` selects it: the token's last 8 characters only, never the token. */
const DeviceRow = rowSchema(Schema.Struct(deviceColumns), viewOf)

/** The row `register` leaves, with what the row held before the statement (null: there was none). */
const RegisteredRow = rowSchema(
  Schema.Struct({
    ...deviceColumns,
    previousUser: Schema.NullOr(UserId),
    previousActive: Schema.NullOr(Schema.Boolean)
  }),
  (row) => ({ device: viewOf(row), previousUser: row.previousUser, previousActive: row.previousActive })
)

// A registration that finds no row in its snapshot but conflicts with one committed meanwhile (two
// first registrations of one token at once) updates nothing and is run again; the second run sees
// the row. Three runs are far more than that race can ever need.
const REGISTER_ATTEMPTS = 3

/**
 * `Devices` on PostgreSQL (table `user_devices`, migration `0012_user_devices`).
 *
 * A registration is one statement. `previous` reads, and locks, the token's row as it is when the
 * statement runs (`FOR UPDATE` waits for a concurrent change and reads its result); the upsert then
 * inserts the token or takes the row over for this user, reactivated. The previous owner and state
 * come back beside the new row, which is how created, the same again and moved are told apart
 * without a second round trip (PostgreSQL 15 has no `RETURNING old.*`).
 *
 * The `WHERE EXISTS (… previous)` on the update does two things. It makes `previous` be read before
 * the row is updated (read lazily, from `RETURNING`, it would meet a row this very statement has
 * already changed, which `FOR UPDATE` skips, and come back empty). And when the snapshot holds no
 * row but a concurrent first registration of the token has committed one meanwhile, it updates
 * nothing, so nothing comes back and the statement is run again on a fresh snapshot.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const columns = sql.literal(`id, token_type AS "tokenType", right(token, 8) AS "tokenLast8", platform,
    created_at AS "createdAt"`)

  const upsert = SqlSchema.findAll({
    Request: Schema.Struct({
      id: Schema.String,
      userId: Schema.String,
      tokenType: Schema.String,
      token: Schema.String,
      platform: Schema.NullOr(Schema.String)
    }),
    Result: RegisteredRow,
    execute: (device) => sql`WITH previous AS MATERIALIZED (
        SELECT user_id, active FROM user_devices
        WHERE token_type = ${device.tokenType} AND token = ${device.token} FOR UPDATE
      )
      INSERT INTO user_devices AS d (id, user_id, token_type, token, platform)
      VALUES (${device.id}, ${device.userId}, ${device.tokenType}, ${device.token}, ${device.platform})
      ON CONFLICT (token_type, token) DO UPDATE SET
        user_id = EXCLUDED.user_id,
        platform = EXCLUDED.platform,
        active = true,
        -- A device new to this user (moved, or reactivated) was registered now, as far as they know.
        created_at = CASE WHEN d.active AND d.user_id = EXCLUDED.user_id THEN d.created_at ELSE now() END,
        updated_at = now(),
        deactivated_at = NULL,
        deactivation_reason = NULL
      WHERE EXISTS (SELECT 1 FROM previous)
      RETURNING ${columns}, (SELECT user_id FROM previous) AS "previousUser",
        (SELECT active FROM previous) AS "previousActive"`
  })

  const register = Effect.fnUntraced(
    function* (userId: UserId, registration: DeviceRegistration) {
      const request = {
        id: randomUUID(),
        userId,
        tokenType: registration.tokenType,
        token: Redacted.value(registration.token),
        platform: registration.platform
      }
      for (let attempt = 1; attempt <= REGISTER_ATTEMPTS; attempt++) {
        const [row] = yield* upsert(request)
        if (row === undefined) continue
        const registered: DeviceRegistered = {
          device: row.device,
          created: !(row.previousUser === userId && row.previousActive === true),
          movedFrom: row.previousUser !== null && row.previousUser !== userId ? row.previousUser : null
        }
        yield* logRegistered(userId, registered)
        return registered
      }
      return yield* Effect.die(new Error(`A device registration found no row ${REGISTER_ATTEMPTS} times`))
    },
    Effect.catchTags({ SqlError: Effect.die, SchemaError: Effect.die })
  )

  const activeOf = SqlSchema.findAll({
    Request: Schema.String,
    Result: DeviceRow,
    execute: (userId) => sql`SELECT ${columns} FROM user_devices WHERE user_id = ${userId} AND active
      ORDER BY created_at, id`
  })

  const list = (userId: UserId) => activeOf(userId).pipe(Effect.orDie)

  const deactivateWhere = (deviceId: DeviceId, userId: UserId | null, reason: string) =>
    sql`UPDATE user_devices SET active = false, deactivated_at = now(), deactivation_reason = ${reason},
        updated_at = now()
      WHERE id = ${deviceId} AND active ${userId === null ? sql`` : sql`AND user_id = ${userId}`}
      RETURNING id`

  const remove = Effect.fnUntraced(
    function* (userId: UserId, deviceId: DeviceId) {
      const removed = yield* deactivateWhere(deviceId, userId, REMOVED_BY_USER)
      if (removed.length === 0) return yield* new DeviceNotFound({ deviceId })
    },
    Effect.catchTag("SqlError", Effect.die)
  )

  // Idempotent: an inactive device keeps the reason and time it was first deactivated with.
  const deactivate = (deviceId: DeviceId, reason: string) =>
    deactivateWhere(deviceId, null, reason).pipe(Effect.asVoid, Effect.orDie)

  return Devices.of({ register, list, remove, deactivate })
})

/** Needs a `SqlClient` on a database migrated through `0012_user_devices`. */
export const layer: Layer.Layer<Devices, never, SqlClient.SqlClient> = Layer.effect(Devices, make)
