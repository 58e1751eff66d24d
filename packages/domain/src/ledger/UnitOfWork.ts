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
  }
>()("@payments-gaming/domain/ledger/UnitOfWork") {}
