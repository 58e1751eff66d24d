import { DatabaseHealth } from "@payments-gaming/adapters/postgres/DatabaseHealth"
import { Api } from "@payments-gaming/api/Api"
import { serviceUnavailable } from "@payments-gaming/api/ApiErrors"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ok } from "../Respond.ts"

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
