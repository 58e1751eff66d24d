import { DatabaseHealth } from "@payments-gaming/adapters/postgres/DatabaseHealth"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { serviceUnavailable } from "../ApiErrors.ts"
import { ok } from "../Envelope.ts"

export const SystemHandlers = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function* () {
    const database = yield* DatabaseHealth
    return handlers
      .handle("healthz", () => ok("Service is alive", { status: "ok" as const }))
      .handle("readyz", () =>
        Effect.flatMap(database.reachable, (reachable) =>
          reachable
            ? ok("Service is ready", { database: "ok" as const })
            : Effect.fail(serviceUnavailable("Database is unreachable"))
        )
      )
  })
)
