// A process logging through the service's logger (Logging.layerConfig, run like apps/http/src/main.js):
// one line once it is up, then LINES lines while its scope closes on SIGTERM, the last moment a
// shutdown logs anything. Logging.test.ts checks that every one of them reaches stdout.
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as Logging from "../../src/observability/Logging.ts"

const LINES = Number(process.env.LINES ?? "1000")

const lastWords = Layer.effectDiscard(
  Effect.gen(function* () {
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        for (let i = 0; i < LINES; i++) yield* Effect.logInfo(`closing ${i}`)
      })
    )
    yield* Effect.logInfo("up")
  })
)

NodeRuntime.runMain(Layer.launch(lastWords.pipe(Layer.provide(Logging.layerConfig()))), {
  disableErrorReporting: true,
  teardown: (_exit, onExit) => onExit(0)
})
