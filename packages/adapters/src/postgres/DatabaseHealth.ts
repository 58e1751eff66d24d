import { Context, Effect, Fiber, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { ReadinessClient } from "./PostgresClient.ts"

/** Whether the database answers, for the readiness probe. */
export class DatabaseHealth extends Context.Service<DatabaseHealth, { readonly reachable: Effect.Effect<boolean> }>()(
  "@payments-gaming/adapters/postgres/DatabaseHealth"
) {}

export const layer = Layer.effect(
  DatabaseHealth,
  Effect.gen(function* () {
    const pool = yield* SqlClient.SqlClient
    // With pipelining, a connection of its own (PostgresClient.ReadinessClient); else the pool's.
    const sql = Option.getOrElse(yield* Effect.serviceOption(ReadinessClient), () => pool)
    // Bounded: a database that hangs must turn readiness red within 2 s. The query runs detached,
    // so the answer does not wait for the driver to cancel and drain it.
    const reachable = Effect.gen(function* () {
      const fiber = yield* Effect.forkDetach(sql`SELECT 1`.pipe(Effect.as(true)))
      return yield* Fiber.join(fiber).pipe(Effect.timeoutOption("2 seconds"))
    }).pipe(
      Effect.map((answer) => answer._tag === "Some"),
      Effect.catchCause(() => Effect.succeed(false))
    )
    return DatabaseHealth.of({ reachable })
  })
)
