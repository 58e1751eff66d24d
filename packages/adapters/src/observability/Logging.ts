import {
  Config,
  Console,
  Context,
  Duration,
  Effect,
  Formatter,
  Layer,
  Logger,
  LogLevel,
  Option,
  References,
  Schema,
  SchemaGetter,
  Tracer
} from "effect"
import { isProductionLenient } from "../config/NodeEnv.ts"
import { endpointConfig } from "./Tracing.ts"

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
 * How long a JSON line may wait for others to be written with it. Writing each line on its own
 * costs a console call and a `write` syscall per request (the access log); 20 ms of lines go out in
 * one write instead, long before anyone reads them. The writer wakes up once per window even when
 * idle, so a shorter window costs an idle service more (measured: 5 ms took 3 to 5 % of a core,
 * 20 ms about 1.5 %). A Duration, not a string: `Logger.batched` sleeps it again every window.
 */
export const WRITE_WINDOW = Duration.millis(20)

/**
 * `format`'s lines gathered for `window` and written together, one `Console.log` per batch (one
 * write on stdout), in the order they were logged. The lines still buffered when the scope closes
 * (a SIGTERM's shutdown, a failed start) are written then, so none is lost.
 */
export const batchedLines = (format: Logger.Logger<unknown, string>, window: Duration.Input = WRITE_WINDOW) =>
  Logger.batched(format, { window, flush: (lines) => Console.log(lines.join("\n")) })

const isPrimitive = (value: unknown) =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean"

// Only strings, finite numbers and booleans in a flat record: what JSON.stringify writes exactly as
// Formatter.formatJson does (nothing to redact, no bigint, no cycle, no Error, no getter).
const isFlat = (record: Record<string, unknown>) => {
  for (const key in record) if (!isPrimitive(record[key])) return false
  return true
}

/**
 * `Logger.formatJson`, with the common line (a string message, flat annotations, no cause: every
 * access-log line) written by plain `JSON.stringify`, which gives the same text. formatJson walks
 * every value through a replacer (redaction, cycles, bigints), about 1 µs a line that the access log
 * paid on every request (issue 16); any other line still goes through it, so a Redacted or an error
 * is rendered exactly as before.
 */
export const formatJson: Logger.Logger<unknown, string> = Logger.map(Logger.formatStructured, (entry) =>
  typeof entry.message === "string" && entry.cause === undefined && isFlat(entry.annotations) && isFlat(entry.spans)
    ? JSON.stringify(entry)
    : Formatter.formatJson(entry)
)

/** The trace and span a line was logged in, when its fiber runs in one. */
const traceOf = (options: Logger.Options<unknown>) =>
  Option.getOrUndefined(Context.getOption(options.fiber.context, Tracer.ParentSpan))

/**
 * `formatJson` with the line's `traceId` and `spanId`, so a log line leads to its trace. Used only
 * while traces are exported (Tracing.ts): without them there is no trace to lead to.
 */
export const formatJsonTraced: Logger.Logger<unknown, string> = Logger.make((options) => {
  const span = traceOf(options)
  const line = formatJson.log(options)
  return span === undefined ? line : `${line.slice(0, -1)},"traceId":"${span.traceId}","spanId":"${span.spanId}"}`
})

/** The pretty line, its message followed by `traceId=…` when there is one. */
const prettyTraced = (pretty: Logger.Logger<unknown, void>): Logger.Logger<unknown, void> =>
  Logger.make((options) => {
    const span = traceOf(options)
    if (span === undefined) return pretty.log(options)
    const message = Array.isArray(options.message) ? options.message : [options.message]
    return pretty.log({ ...options, message: [...message, `traceId=${span.traceId}`] })
  })

/**
 * Pretty logs for a developer's terminal, JSON lines in production (or with LOG_FORMAT=json), at
 * LOG_LEVEL (default info). The server's JSON lines are written in batches (`batchedLines`); the
 * CLI's go to stderr one by one, as they happen, because a command exits right after its last line.
 */
export const layerConfig = (options: LoggingOptions = {}) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const production = yield* isProductionLenient
      const format = yield* Config.Literals(["pretty", "json"], "LOG_FORMAT").pipe(
        Config.withDefault(production ? "json" : "pretty")
      )
      const level = yield* Config.schema(LogLevelName, "LOG_LEVEL").pipe(
        Config.withDefault(options.defaultLevel ?? "Info")
      )
      // With traces exported, every line names its trace (and span).
      const traced = Option.isSome(yield* endpointConfig)
      const json = traced ? formatJsonTraced : formatJson
      // The CLI writes the server's format too, on stderr, so stdout carries only its answer.
      const logger =
        format === "json"
          ? options.stderr
            ? Logger.withConsoleError(json)
            : batchedLines(json)
          : traced
            ? prettyTraced(Logger.consolePretty())
            : Logger.consolePretty()
      return Layer.mergeAll(
        Logger.layer([logger]),
        Layer.succeed(References.MinimumLogLevel, level),
        Layer.succeed(Logger.LogToStderr, options.stderr === true)
      )
    })
  )
