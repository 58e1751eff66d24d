import { UnitOfWork } from "@payments-gaming/domain/ledger"
import { Cause, Effect, Layer } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { lostConnectionIn } from "./DatabaseUnavailable.ts"

/**
 * `UnitOfWork` as a SQL transaction on the ambient client: nested units become savepoints. A
 * database failure (lost connection, serialization failure) is a defect here: the domain has no
 * use for it beyond "this request failed", and the transaction has been rolled back.
 *
 * A unit whose connection dropped before its COMMIT was sent is run once more, from the start, on
 * a fresh connection (the pool discards the dead one at the next checkout): a connection killed
 * by a failover, a restart or `pg_terminate_backend` is then no failure for the caller. That is
 * safe because such a transaction provably did not commit: the body failed (or BEGIN did), so no
 * COMMIT was ever sent, and PostgreSQL rolls back the open transaction of a session that ends.
 * The units' bodies do nothing but database work, so running one again repeats nothing else. A
 * connection that could not be opened at all is not retried (see `isConnectionLost`).
 *
 * A COMMIT that fails on a dropped connection is NOT retried: the server may have committed before
 * the connection went, and running the unit again could apply it twice. It fails (a 503 over
 * HTTP) and the caller decides. For the webhook that retry is the provider's redelivery, and it is
 * safe whatever the outcome: the event's dedup key (kind and reference, unique in
 * `webhook_events`) makes a committed delivery come back as a duplicate, and the ledger's
 * idempotency key keeps it from being credited twice. Only the outermost unit retries: a nested
 * one shares the outer connection, which is dead, so its failure goes up to the outer unit, which
 * runs the whole transaction again.
 *
 * `idempotent` units (a webhook credit, a spin: each writes in one statement, keyed) run
 * without a transaction, so there is no COMMIT to lose: whatever the lost statement did, the unit
 * is run once more, and a write that did commit comes back as a duplicate of itself.
 */
const RETRY_PAUSE = "100 millis"

export const layer = Layer.effect(
  UnitOfWork,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const run = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchIf(SqlError.isSqlError, Effect.die))

    const outermost = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.suspend(() => {
        // Set once the body has succeeded: from then on withTransaction is committing.
        let committing = false
        const marked = Effect.tap(effect, () =>
          Effect.sync(() => {
            committing = true
          })
        )
        return run(marked).pipe(
          Effect.catchCause((cause) =>
            !committing && !Cause.hasInterrupts(cause) && lostConnectionIn(cause)
              ? Effect.logInfo("Database connection lost before COMMIT; running the transaction again").pipe(
                  // A restart or a failover ends every session at once: the pause lets the rest of
                  // them close, so the pool discards them and the retry gets a live connection.
                  Effect.andThen(Effect.sleep(RETRY_PAUSE)),
                  Effect.andThen(run(effect))
                )
              : Effect.failCause(cause)
          )
        )
      })

    // No transaction to lose: the unit is run again on any lost connection, committed or not, which
    // its idempotence (UnitOfWork.idempotent) makes safe. Inside a transaction, that one retries.
    const idempotent = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.catchCause(effect, (cause) =>
        !Cause.hasInterrupts(cause) && lostConnectionIn(cause)
          ? Effect.logInfo("Database connection lost; running the idempotent unit again").pipe(
              Effect.andThen(Effect.sleep(RETRY_PAUSE)),
              Effect.andThen(effect)
            )
          : Effect.failCause(cause)
      )

    return UnitOfWork.of({
      transaction: (effect) =>
        Effect.flatMap(Effect.serviceOption(sql.transactionService), (open) =>
          open._tag === "Some" ? run(effect) : outermost(effect)
        ),
      idempotent: (effect) =>
        Effect.flatMap(Effect.serviceOption(sql.transactionService), (open) =>
          open._tag === "Some" ? effect : idempotent(effect)
        )
    })
  })
)
