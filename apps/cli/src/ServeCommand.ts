import { Effect, Layer } from "effect"
import { Command } from "effect/cli"
import { stopOnSignalIsClean } from "./Runtime.ts"

export const serve = Command.make("serve", {}, () =>
  // The whole service is loaded only when it is asked for, so the other commands start fast.
  Effect.promise(() => import("@payments-gaming/http")).pipe(
    Effect.tap(() => Effect.sync(stopOnSignalIsClean)),
    Effect.flatMap(({ ServiceLive }) => Layer.launch(ServiceLive))
  )
).pipe(
  Command.withDescription(
    "Start the HTTP service (PORT, HOST; DATABASE_URL or the embedded database under DATA_DIR). " +
      "SIGTERM or SIGINT stops it gracefully."
  )
)
