// The service: its layer launched, start-up failures reported in one line, the exit code an
// orchestrator expects. Loaded by main.js once the compile cache is on.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Logging from "@payments-gaming/adapters/observability/Logging"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { ServiceLive } from "./Server.ts"
import * as StartFailure from "./StartFailure.ts"

// SIGINT/SIGTERM interrupt the main fiber; closing the layer's scope shuts the service down in
// order (stop accepting, finish in-flight requests, close the pool). A start-up failure (missing
// production secrets, unreachable database) is logged once, through the same logger as the rest,
// so production logs stay JSON, and exits 1.
const main = Layer.launch(ServiceLive).pipe(
  Effect.tapCause((cause) =>
    Cause.hasInterruptsOnly(cause)
      ? Effect.void
      : Option.match(StartFailure.describe(cause, process.env.PORT ?? "8080"), {
          // A failure the operator can fix is one line, no stack.
          onSome: (line) => Effect.logError(line),
          onNone: () => Effect.logError("Service failed to start or stopped", cause)
        })
  ),
  Effect.provide(Logging.layerConfig())
)

NodeRuntime.runMain(main, {
  disableErrorReporting: true,
  // A stop asked for by a signal is a clean exit (0), not the shell's 130, so orchestrators do not
  // count a deploy or scale-down as a crash.
  teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause) ? 0 : 1)
})
