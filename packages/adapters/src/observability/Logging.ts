import { Config, Effect, Layer, Logger, LogLevel, References, Schema, SchemaGetter } from "effect"

// LOG_LEVEL is written as operators write it (info, WARN, debug) and mapped to Effect's level names.
const LogLevelName = Schema.String.pipe(
  Schema.decodeTo(Schema.Literals(LogLevel.values), {
    decode: SchemaGetter.transform(
      (raw: string) => (raw.charAt(0).toUpperCase() + raw.slice(1).toLowerCase()) as LogLevel.LogLevel
    ),
    encode: SchemaGetter.transform((level) => level)
  })
)

export interface LoggingOptions {
  /** Write log lines to stderr, keeping stdout for a command's own output (the CLI). */
  readonly stderr?: boolean
  /** The level when LOG_LEVEL is unset (info). The CLI says only what went wrong (warn). */
  readonly defaultLevel?: LogLevel.LogLevel
}

/**
 * Pretty logs for a developer's terminal, JSON lines in production (or with LOG_FORMAT=json), at
 * LOG_LEVEL (default info).
 */
export const layerConfig = (options: LoggingOptions = {}) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const production = (yield* Config.String("NODE_ENV").pipe(Config.withDefault(""))) === "production"
      const format = yield* Config.Literals(["pretty", "json"], "LOG_FORMAT").pipe(
        Config.withDefault(production ? "json" : "pretty")
      )
      const level = yield* Config.schema(LogLevelName, "LOG_LEVEL").pipe(
        Config.withDefault(options.defaultLevel ?? "Info")
      )
      // The CLI writes the server's format too, on stderr, so stdout carries only its answer.
      const logger =
        format === "json"
          ? options.stderr
            ? Logger.withConsoleError(Logger.formatJson)
            : Logger.consoleJson
          : Logger.consolePretty()
      return Layer.mergeAll(
        Logger.layer([logger]),
        Layer.succeed(References.MinimumLogLevel, level),
        Layer.succeed(Logger.LogToStderr, options.stderr === true)
      )
    })
  )
