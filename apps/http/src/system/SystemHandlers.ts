import { Effect, Fiber } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { Api } from "../Api.ts"
import { serviceUnavailable } from "../ApiErrors.ts"
import { ok } from "../Envelope.ts"

export const SystemHandlers = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // A bounded probe: a database that hangs must turn readiness red within 2 s. The query runs
    // detached, so the answer does not wait for the driver to cancel and drain it.
    const databaseReachable = Effect.gen(function* () {
      const fiber = yield* Effect.forkDetach(sql`SELECT 1`.pipe(Effect.as(true)))
      return yield* Fiber.join(fiber).pipe(Effect.timeoutOption("2 seconds"))
    }).pipe(
      Effect.map((reachable) => reachable._tag === "Some"),
      Effect.catchCause(() => Effect.succeed(false))
    )
    return handlers
      .handle("healthz", () => ok("Service is alive", { status: "ok" as const }))
      .handle("readyz", () =>
        Effect.flatMap(databaseReachable, (reachable) =>
          reachable
            ? ok("Service is ready", { database: "ok" as const })
            : Effect.fail(serviceUnavailable("Database is unreachable"))
        )
      )
  })
)
