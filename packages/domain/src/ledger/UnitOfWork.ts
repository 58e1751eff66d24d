import { Context, type Effect } from "effect"

/**
 * "Run this atomically" without naming a database: everything the effect does through repository
 * ports commits together or not at all. Nested calls join the outer unit (a savepoint in SQL, so a
 * failed inner unit undoes only its own work).
 */
export class UnitOfWork extends Context.Service<
  UnitOfWork,
  {
    transaction<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R>
    /**
     * Runs an effect that needs no transaction: each of its writes is atomic on its own, and running
     * it again after a first run committed changes nothing (its writes are keyed, as a webhook event
     * is by its dedup key and its posting by the ledger key). A database that lost its connection
     * under it runs it once more, whether or not the lost write committed, where a transaction whose
     * COMMIT went unanswered cannot be run again. Inside a `transaction` it is part of that.
     */
    idempotent<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R>
  }
>()("@payments-gaming/domain/ledger/UnitOfWork") {}
