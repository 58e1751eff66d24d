import { ServiceLive } from "@payments-gaming/http"
import { Layer } from "effect"
import { Command } from "effect/cli"

export const serve = Command.make("serve", {}, () => Layer.launch(ServiceLive)).pipe(
  Command.withDescription(
    "Start the HTTP service (PORT, HOST; DATABASE_URL or the embedded database under DATA_DIR). " +
      "SIGTERM or SIGINT stops it gracefully."
  )
)
