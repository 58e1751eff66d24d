import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { Api } from "../Api.ts"
import { serviceUnavailable } from "../ApiErrors.ts"
import { ok } from "../Envelope.ts"

export const SystemHandlers = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // A bounded probe: a database that hangs must turn readiness red, not hang the probe.
    const databaseReachable = sql`SELECT 1`.pipe(
      Effect.timeout("2 seconds"),
      Effect.as(true),
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
