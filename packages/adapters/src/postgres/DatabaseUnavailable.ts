import { Cause, Predicate } from "effect"
import { SqlError } from "effect/sql"

/**
 * What `@effect/sql-pg` raises when the database goes away, as probed against PostgreSQL 15 with
 * `pg_terminate_backend` and a refused port:
 * - a statement running when its connection is killed: reason `ConnectionError`, operation
 *   `query`, "PgConnection: Connection closed" (or "Socket error" on a reset);
 * - a statement sent on a connection killed while idle (in a transaction, or in the pool before it
 *   noticed): reason `UnknownError`, operation `query`, whose cause is the server's FATAL with
 *   SQLSTATE 57P01 (admin_shutdown);
 * - no connection at all: reason `ConnectionError`, operation `connect` (ECONNREFUSED, or the 5 s
 *   connect timeout); a server starting up or full refuses with 57P03 or 53300 at `connect`.
 * - a statement the server gave up on under the pipelined connections' bounds
 *   (`PostgresClient.PIPELINED_SESSION`): reason `LockTimeoutError` (55P03, a lock waited for too
 *   long) or `StatementTimeoutError` (57014); the database is busy rather than gone, and the client
 *   may try again as after any 503.
 * Repositories turn every `SqlError` into a defect, so these reach the HTTP layer as defects.
 */

/** admin_shutdown (pg_terminate_backend, a fast shutdown) and crash_shutdown: the server ended the session. */
const SESSION_ENDED = new Set(["57P01", "57P02"])
/** ...and cannot_connect_now (starting, recovering) or too_many_connections: no session to be had. */
const NO_SESSION = new Set([...SESSION_ENDED, "57P03", "53300"])

const sqlStateOf = (error: SqlError.SqlError): string | undefined => {
  const cause = error.reason.cause
  return Predicate.hasProperty(cause, "code") && typeof cause.code === "string" ? cause.code : undefined
}

/**
 * A connection that was open has dropped: whatever transaction it carried is gone, and PostgreSQL
 * rolls back the open transaction of a session that ends. A failed `connect` is not this: that
 * database is unreachable, and trying again at once only doubles the wait on one that hangs.
 */
export const isConnectionLost = (u: unknown): boolean =>
  SqlError.isSqlError(u) &&
  u.reason.operation !== "connect" &&
  (u.reason._tag === "ConnectionError" || SESSION_ENDED.has(sqlStateOf(u) ?? ""))

/** A connection that failed, or a statement the server gave up waiting for: not a wrong statement. */
const UNAVAILABLE_REASONS = new Set(["ConnectionError", "LockTimeoutError", "StatementTimeoutError"])

/** The database cannot be used right now: a lost connection, none to be had, or a statement it gave up on. */
export const isDatabaseUnavailable = (u: unknown): boolean =>
  SqlError.isSqlError(u) && (UNAVAILABLE_REASONS.has(u.reason._tag) || NO_SESSION.has(sqlStateOf(u) ?? ""))

const errorsOf = (cause: Cause.Cause<unknown>): Array<unknown> =>
  cause.reasons.flatMap((reason) =>
    Cause.isFailReason(reason) ? [reason.error] : Cause.isDieReason(reason) ? [reason.defect] : []
  )

/** Whether a failed unit of work lost its connection (its failures and defects, interruptions aside). */
export const lostConnectionIn = (cause: Cause.Cause<unknown>): boolean => errorsOf(cause).some(isConnectionLost)

/**
 * The database error a request failed with when that is all it failed with (a rolled-back
 * transaction on a dead connection reports the dead connection twice), else `undefined`: a cause
 * that also carries anything else is a real failure and stays a 500.
 */
export const databaseUnavailableIn = (cause: Cause.Cause<unknown>): SqlError.SqlError | undefined => {
  const errors = errorsOf(cause)
  if (errors.length === 0 || !errors.every(isDatabaseUnavailable)) return undefined
  return errors[0] as SqlError.SqlError
}
