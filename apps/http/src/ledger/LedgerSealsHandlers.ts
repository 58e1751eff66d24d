import { Api } from "@payments-gaming/api/Api"
import { notFound } from "@payments-gaming/api/ApiErrors"
import { SealService } from "@payments-gaming/domain/ledger"
import { Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ok } from "../Respond.ts"

const DEFAULT_LIMIT = 50

export const LedgerSealsHandlers = HttpApiBuilder.group(Api, "ledgerSeals", (handlers) =>
  Effect.gen(function* () {
    const seals = yield* SealService
    return handlers
      .handle("list", ({ query }) =>
        seals
          .list({ after: query.cursor, limit: query.limit ?? DEFAULT_LIMIT })
          .pipe(Effect.flatMap((page) => ok("Ledger seals fetched", page)))
      )
      .handle("latest", () =>
        seals.latest.pipe(
          Effect.flatMap(
            Option.match({
              onNone: () => Effect.fail(notFound("Nothing is sealed yet")),
              onSome: (seal) => ok("Latest ledger seal fetched", seal)
            })
          )
        )
      )
  })
)
