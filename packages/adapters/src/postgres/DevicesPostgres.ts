import { randomUUID } from "node:crypto"
import { UserId } from "@payments-gaming/domain/auth"
import {
  DeviceId,
  DeviceLimitReached,
  DeviceNotFound,
  type DeviceRegistered,
  type DeviceRegistration,
  Devices,
  type DeviceView,
  logRegistered,
  MAX_ACTIVE_DEVICES,
  MAX_INACTIVE_DEVICES,
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

type RegisterOutcome =
  | {
      readonly outcome: "registered"
      readonly device: DeviceView
      readonly previousUser: UserId | null
      readonly previousActive: boolean | null
    }
  | { readonly outcome: "full" }
  | { readonly outcome: "raced" }

/**
 * What one run of `register`'s statement did: `registered`, the row it left with what the row held
 * before the statement (null: there was none); `full`, refused at the limit, nothing changed;
 * `raced`, nothing changed because a first registration of the token committed meanwhile.
 */
const RegisterOutcome = rowSchema(
  Schema.Union([
    Schema.Struct({
      outcome: Schema.Literal("registered"),
      ...deviceColumns,
      previousUser: Schema.NullOr(UserId),
      previousActive: Schema.NullOr(Schema.Boolean)
    }),
    Schema.Struct({ outcome: Schema.Literals(["full", "raced"]) })
  ]),
  (row): RegisterOutcome =>
    row.outcome === "registered"
      ? {
          outcome: row.outcome,
          device: viewOf(row),
          previousUser: row.previousUser,
          previousActive: row.previousActive
        }
      : { outcome: row.outcome }
)

// A registration that finds no row in its snapshot but conflicts with one committed meanwhile (two
// first registrations of one token at once) updates nothing and is run again; the second run sees
// the row. Three runs are far more than that race can ever need.
const REGISTER_ATTEMPTS = 3

// The first key of the per-user advisory lock that serialises registrations of one user (the second
// is the hash of the user id). The two-key form: PostgreSQL keeps it apart from the one-key form
// the migrations' lock uses, so the two can never meet. 18: the issue that brought devices.
const DEVICE_LIMIT_LOCK = 18

/**
 * `Devices` on PostgreSQL (table `user_devices`, migrations `0012_user_devices` and
 * `0019_device_token_erasure`: an inactive device keeps no token, and a user at most
 * `MAX_INACTIVE_DEVICES` inactive rows).
 *
 * A registration is one statement (behind its user's lock, below). `previous` reads, and locks, the token's row as it is when the
 * statement runs (`FOR UPDATE` waits for a concurrent change and reads its result); the upsert then
 * inserts the token or takes the row over for this user, reactivated. The previous owner and state
 * come back beside the new row, which is how created, the same again and moved are told apart
 * without a second round trip (PostgreSQL 15 has no `RETURNING old.*`).
 *
 * The `WHERE EXISTS (… previous)` on the update does two things. It makes `previous` be read before
 * the row is updated (read lazily, from `RETURNING`, it would meet a row this very statement has
 * already changed, which `FOR UPDATE` skips, and come back empty). And when the snapshot holds no
 * row but a concurrent first registration of the token has committed one meanwhile, it updates
 * nothing (`raced`) and the statement is run again on a fresh snapshot.
 *
 * The limit (`MAX_ACTIVE_DEVICES`). `room` lets the statement write only when the token is already
 * an active device of this user (the same again) or the user has fewer active devices than the
 * limit; otherwise nothing changes and the statement answers `full`. A count is only
 * as fresh as the statement's snapshot, so every registration first takes a transaction-scoped
 * advisory lock on its user: one user's registrations run one at a time, and the statement that
 * follows the lock (READ COMMITTED, PostgreSQL's default: a snapshot per statement) sees every
 * device the lock's previous holders added. Removals, deactivations and moves away only lower the
 * count and need no lock (racing one, a registration at the limit is at worst refused). An advisory
 * lock rather than a lock row as `card_holders`: nothing to store, migrate or write at each
 * registration, and one lock per registration, always taken before the token's row, so no two
 * registrations can wait on each other in a cycle. Two users whose ids hash alike only queue.
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
    Result: RegisterOutcome,
    execute: (device) => sql`WITH previous AS MATERIALIZED (
        SELECT user_id, active FROM user_devices
        WHERE token_type = ${device.tokenType} AND token = ${device.token} FOR UPDATE
      ),
      room AS MATERIALIZED (
        SELECT EXISTS (SELECT 1 FROM previous WHERE user_id = ${device.userId} AND active)
          OR (SELECT count(*) FROM user_devices WHERE user_id = ${device.userId} AND active) < ${MAX_ACTIVE_DEVICES}
          AS allowed
      ),
      registered AS (
        INSERT INTO user_devices AS d (id, user_id, token_type, token, platform)
        SELECT ${device.id}::uuid, ${device.userId}::text, ${device.tokenType}::text, ${device.token}::text,
          ${device.platform}::text
        FROM room WHERE room.allowed
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
        RETURNING ${columns}
      )
      SELECT CASE WHEN registered.id IS NOT NULL THEN 'registered' WHEN room.allowed THEN 'raced' ELSE 'full' END
          AS outcome,
        registered.*, (SELECT user_id FROM previous) AS "previousUser",
        (SELECT active FROM previous) AS "previousActive"
      FROM room LEFT JOIN registered ON true`
  })

  // Held until the registration's transaction ends; see `make`'s comment for why.
  const lockUser = (userId: UserId) => sql`SELECT pg_advisory_xact_lock(${DEVICE_LIMIT_LOCK}, hashtext(${userId}))`

  // The registration's rows, in its transaction: made once, not a generator per call (docs/architecture.md).
  const upsertLocked = Effect.fnUntraced(function* (userId: UserId, request: Parameters<typeof upsert>[0]) {
    yield* lockUser(userId)
    for (let attempt = 1; attempt <= REGISTER_ATTEMPTS; attempt++) {
      const [outcome] = yield* upsert(request)
      if (outcome?.outcome === "registered" || outcome?.outcome === "full") return outcome
    }
    return yield* Effect.die(new Error(`A device registration found no row ${REGISTER_ATTEMPTS} times`))
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
      const row = yield* sql.withTransaction(upsertLocked(userId, request))
      if (row.outcome === "full") return yield* new DeviceLimitReached({ limit: MAX_ACTIVE_DEVICES })
      const registered: DeviceRegistered = {
        device: row.device,
        created: !(row.previousUser === userId && row.previousActive === true),
        movedFrom: row.previousUser !== null && row.previousUser !== userId ? row.previousUser : null
      }
      // Logged once committed: a line never tells of a registration that was rolled back.
      yield* logRegistered(userId, registered)
      return registered
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

  /**
   * Deactivates the device, erasing its token (nothing sends to an inactive device; migration 0019),
   * and deletes the user's inactive rows beyond the newest `MAX_INACTIVE_DEVICES`, in one statement.
   * The DELETE reads the snapshot from before the UPDATE, in which this device is still active: it
   * keeps the newest MAX_INACTIVE_DEVICES − 1 others, and this one makes the number.
   */
  const deactivateWhere = (deviceId: DeviceId, userId: UserId | null, reason: string) =>
    sql`WITH gone AS (
        UPDATE user_devices SET active = false, token = NULL, deactivated_at = now(),
          deactivation_reason = ${reason}, updated_at = now()
        WHERE id = ${deviceId} AND active ${userId === null ? sql`` : sql`AND user_id = ${userId}`}
        RETURNING id, user_id
      ),
      pruned AS (
        DELETE FROM user_devices WHERE id IN (
          SELECT id FROM user_devices
          WHERE user_id = (SELECT user_id FROM gone) AND NOT active
          ORDER BY deactivated_at DESC, id DESC
          OFFSET ${MAX_INACTIVE_DEVICES - 1}
        )
      )
      SELECT id FROM gone`

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

/** Needs a `SqlClient` on a database migrated through `0019_device_token_erasure`. */
export const layer: Layer.Layer<Devices, never, SqlClient.SqlClient> = Layer.effect(Devices, make)
