import { assert, describe, it } from "@effect/vitest"
import { configErrorMessage } from "@payments-gaming/adapters/config/ConfigErrorMessage"
import { Config, ConfigProvider, Effect } from "effect"

const refusal = <A>(config: Config.Config<A>, env: Record<string, string>) =>
  Effect.gen(function* () {
    return yield* config
  }).pipe(Effect.flip, Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env))))

describe("configErrorMessage: the one line a refused start prints", () => {
  it.effect("names the variable whose value does not parse, and what was expected, on one line", () =>
    Effect.gen(function* () {
      const duration = yield* refusal(Config.Duration("LEDGER_SEAL_INTERVAL"), { LEDGER_SEAL_INTERVAL: "1s" })
      assert.strictEqual(configErrorMessage(duration), "LEDGER_SEAL_INTERVAL: Expected a valid Duration string")
      const port = yield* refusal(Config.Int("PORT"), { PORT: "abc" })
      assert.strictEqual(configErrorMessage(port), "PORT: Expected a string representing a finite number")
    })
  )

  it.effect("gives a source error's own message", () =>
    Effect.gen(function* () {
      const port = yield* refusal(
        Config.Int("PORT").pipe(
          Config.mapEffect(() =>
            Effect.fail(new Config.ConfigError(new ConfigProvider.SourceError({ message: "PORT must be 0 to 65535" })))
          )
        ),
        { PORT: "70000" }
      )
      assert.strictEqual(configErrorMessage(port), "PORT must be 0 to 65535")
    })
  )
})
