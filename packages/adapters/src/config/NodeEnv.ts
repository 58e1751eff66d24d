import { Config, ConfigProvider, Effect } from "effect"

/** The three environments the service knows; anything else in NODE_ENV is refused at start. */
export type NodeEnv = "production" | "development" | "test"

const KNOWN: ReadonlyArray<NodeEnv> = ["production", "development", "test"]

/**
 * `NODE_ENV`, matched without regard to case (`PRODUCTION` is production: a deployment that
 * capitalised it used to start in development mode, with generated secrets and the embedded
 * database). Unset or blank is development. Any other value fails the start in one line naming the
 * variable, rather than silently meaning development.
 */
export const nodeEnv: Config.Config<NodeEnv> = Config.String("NODE_ENV").pipe(
  Config.withDefault(""),
  Config.mapEffect((raw) => {
    const value = raw.trim().toLowerCase()
    if (value === "") return Effect.succeed<NodeEnv>("development")
    const known = KNOWN.find((name) => name === value)
    return known !== undefined
      ? Effect.succeed(known)
      : Effect.fail(
          new Config.ConfigError(
            new ConfigProvider.SourceError({
              message: `NODE_ENV must be production, development or test (any case), not ${JSON.stringify(raw.slice(0, 40))}`
            })
          )
        )
  })
)

/** Whether this is a production start (strict mode); fails like {@link nodeEnv} on an unknown value. */
export const isProduction: Config.Config<boolean> = Config.map(nodeEnv, (env) => env === "production")

/**
 * The same decision for the logger alone, which never fails: the logger must exist to report the
 * refusal of an unknown value, which the configuration layers (DevSecrets) make right after.
 */
export const isProductionLenient: Config.Config<boolean> = Config.String("NODE_ENV").pipe(
  Config.withDefault(""),
  Config.map((raw) => raw.trim().toLowerCase() === "production")
)
