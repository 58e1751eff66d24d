import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Exit } from "effect"
import { read } from "../../src/ledger/SealSettingsConfig.ts"

const readWith = (env: Record<string, string>) =>
  read.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env))), Effect.exit)

describe("the sealer's settings", () => {
  it.effect("default to sealing every 5 seconds, on", () =>
    Effect.gen(function* () {
      const settings = yield* readWith({})
      assert.isTrue(Exit.isSuccess(settings))
      if (Exit.isSuccess(settings)) {
        assert.isTrue(settings.value.enabled)
        assert.isTrue(Duration.equals(settings.value.interval, Duration.seconds(5)))
      }
    })
  )

  it.effect("read LEDGER_SEAL_INTERVAL as a duration and LEDGER_SEALER as on/off", () =>
    Effect.gen(function* () {
      const settings = yield* readWith({ LEDGER_SEAL_INTERVAL: "250 millis", LEDGER_SEALER: "off" })
      assert.isTrue(Exit.isSuccess(settings))
      if (Exit.isSuccess(settings)) {
        assert.isFalse(settings.value.enabled)
        assert.isTrue(Duration.equals(settings.value.interval, Duration.millis(250)))
      }
    })
  )

  it.effect("refuse an interval that is not a positive duration, naming it", () =>
    Effect.gen(function* () {
      for (const value of ["0 seconds", "soon", "-1 seconds"]) {
        const settings = yield* readWith({ LEDGER_SEAL_INTERVAL: value })
        assert.isTrue(Exit.isFailure(settings), value)
        if (Exit.isFailure(settings)) assert.include(String(settings.cause), "LEDGER_SEAL_INTERVAL", value)
      }
    })
  )
})
