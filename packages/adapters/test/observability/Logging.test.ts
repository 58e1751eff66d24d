import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Logger, Redacted, Scope } from "effect"
import { TestConsole } from "effect/testing"
import * as Logging from "../../src/observability/Logging.ts"

const message = Logger.make(({ message }) => String(message))

/** `Logging.layerConfig(options)` with `env` as the process environment. */
const loggingWith = (env: Record<string, string>, options?: Logging.LoggingOptions) =>
  Logging.layerConfig(options).pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env))))

describe("batched log lines", () => {
  it.effect("are written in order, complete, one write per batch, and flushed when the scope closes", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      // A window no test outlasts: whatever is written below is written by the scope's close.
      const logger = yield* Logging.batchedLines(message, "1 hour").pipe(Scope.provide(scope))
      const expected = Array.from({ length: 1000 }, (_, i) => `line ${i} ${"x".repeat(i % 7)}`)
      for (const line of expected) yield* Effect.logInfo(line).pipe(Effect.provide(Logger.layer([logger])))
      assert.deepStrictEqual(yield* TestConsole.logLines, [], "nothing written before the window or the close")
      yield* Scope.close(scope, Exit.void)
      const writes = yield* TestConsole.logLines
      assert.strictEqual(writes.length, 1, "one write for the whole batch")
      assert.deepStrictEqual(String(writes[0]).split("\n"), expected)
    }).pipe(Effect.provide(TestConsole.layer))
  )

  it.live("are written within the window, without waiting for the close", () =>
    Effect.gen(function* () {
      const logger = yield* Logging.batchedLines(message, "5 millis")
      const log = (line: string) => Effect.logInfo(line).pipe(Effect.provide(Logger.layer([logger])))
      yield* log("first")
      yield* log("second")
      yield* Effect.sleep("100 millis")
      assert.deepStrictEqual(yield* TestConsole.logLines, ["first\nsecond"])
      yield* log("third")
      yield* Effect.sleep("100 millis")
      assert.deepStrictEqual(yield* TestConsole.logLines, ["first\nsecond", "third"])
    }).pipe(Effect.scoped, Effect.provide(TestConsole.layer))
  )
})

describe("Logging.formatJson", () => {
  it.effect("writes every line exactly as Logger.formatJson does, plain or not", () =>
    Effect.gen(function* () {
      const ours: Array<string> = []
      const effects: Array<string> = []
      const both = Logger.layer([
        Logger.map(Logging.formatJson, (line) => {
          ours.push(line)
        }),
        Logger.map(Logger.formatJson, (line) => {
          effects.push(line)
        })
      ])
      const lines = [
        Effect.logInfo("GET /v1/wallet?limit 200 1.2ms").pipe(Effect.annotateLogs({ requestId: "req-1" })),
        Effect.logWarning('quotes " and \\ and \n and \u0000 and ₦').pipe(
          Effect.annotateLogs({ count: 3, ok: true, ratio: Number.NaN })
        ),
        Effect.logInfo("in a span").pipe(Effect.withLogSpan("work")),
        Effect.logInfo("a secret").pipe(Effect.annotateLogs({ secret: Redacted.make("hunter2") })),
        Effect.logInfo("nested").pipe(Effect.annotateLogs({ detail: { amount: 10n, list: [1, "two"] } })),
        Effect.logInfo(42),
        Effect.logInfo("two", "parts"),
        Effect.logError("failed", new Error("boom")),
        Effect.logError("with a cause").pipe(
          Effect.andThen(Effect.fail("nope")),
          Effect.tapCause(Effect.logError),
          Effect.ignore
        )
      ]
      for (const line of lines) yield* line.pipe(Effect.provide(both))
      assert.isAtLeast(ours.length, lines.length)
      assert.deepStrictEqual(ours, effects)
      assert.notInclude(ours.join("\n"), "hunter2")
    })
  )
})

describe("Logging.layerConfig", () => {
  it.live("production: JSON lines on stdout, in batches, every field an operator reads", () =>
    Effect.gen(function* () {
      yield* Effect.logInfo("GET /v1/wallet 200 1.2ms").pipe(Effect.annotateLogs({ requestId: "req-1" }))
      yield* Effect.logDebug("below the level")
      yield* Effect.logWarning("a warning")
      assert.deepStrictEqual(yield* TestConsole.logLines, [], "still in the batch")
      yield* Effect.sleep("100 millis")
      const writes = yield* TestConsole.logLines
      assert.strictEqual(writes.length, 1)
      const lines = String(writes[0])
        .split("\n")
        .map((line) => JSON.parse(line))
      assert.deepStrictEqual(
        lines.map((line) => [line.message, line.level, line.annotations]),
        [
          ["GET /v1/wallet 200 1.2ms", "INFO", { requestId: "req-1" }],
          ["a warning", "WARN", {}]
        ]
      )
      for (const line of lines) assert.strictEqual(new Date(line.timestamp).toISOString(), line.timestamp)
    }).pipe(Effect.provide(loggingWith({ NODE_ENV: "production" })), Effect.scoped, Effect.provide(TestConsole.layer))
  )

  it.effect("the CLI's JSON lines go to stderr at once, one by one: a command exits right after", () =>
    Effect.gen(function* () {
      yield* Effect.logWarning("first")
      assert.strictEqual((yield* TestConsole.errorLines).length, 1, "written before the next line is logged")
      yield* Effect.logInfo("below the CLI's default level")
      yield* Effect.logError("second")
      const lines = (yield* TestConsole.errorLines).map((line) => JSON.parse(String(line)))
      assert.deepStrictEqual(
        lines.map((line) => [line.message, line.level]),
        [
          ["first", "WARN"],
          ["second", "ERROR"]
        ]
      )
      assert.deepStrictEqual(yield* TestConsole.logLines, [], "stdout carries only the command's answer")
    }).pipe(
      Effect.provide(loggingWith({ LOG_FORMAT: "json" }, { stderr: true, defaultLevel: "Warn" })),
      Effect.provide(TestConsole.layer)
    )
  )
})

describe("a SIGTERM", () => {
  it.live(
    "loses no line: those logged while the service shuts down are on stdout, in order",
    () =>
      Effect.gen(function* () {
        const script = fileURLToPath(new URL("./LogUntilShutdown.ts", import.meta.url))
        const lines = 1000
        const child = spawn(process.execPath, [script], {
          env: { ...process.env, NODE_ENV: "production", LOG_LEVEL: "info", LINES: String(lines) },
          stdio: ["ignore", "pipe", "pipe"]
        })
        let stdout = ""
        let stderr = ""
        child.stdout.on("data", (chunk) => {
          stdout += chunk
        })
        child.stderr.on("data", (chunk) => {
          stderr += chunk
        })
        const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
        // Up (its first line written), then stopped as an orchestrator stops the service.
        while (!stdout.includes('"up"')) {
          if (child.exitCode !== null) assert.fail(`exited early: ${stderr}`)
          yield* Effect.sleep("20 millis")
        }
        child.kill("SIGTERM")
        const code = yield* Effect.promise(() => exited)
        assert.strictEqual(code, 0, stderr)
        const messages = stdout
          .trimEnd()
          .split("\n")
          .map((line) => JSON.parse(line).message)
        assert.deepStrictEqual(messages, ["up", ...Array.from({ length: lines }, (_, i) => `closing ${i}`)])
      }),
    30_000
  )
})

describe("log lines while traces are exported", () => {
  it.effect("name the trace and span they were logged in (JSON), and say nothing of one outside any", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const capture = Logger.layer([
        Logger.map(Logging.formatJsonTraced, (line) => {
          lines.push(line)
        })
      ])
      const span = yield* Effect.gen(function* () {
        yield* Effect.logInfo("inside")
        return yield* Effect.currentSpan
      }).pipe(Effect.withSpan("request"), Effect.provide(capture))
      yield* Effect.logInfo("outside").pipe(Effect.provide(capture))
      const [inside, outside] = lines.map((line) => JSON.parse(line))
      assert.strictEqual(inside.message, "inside")
      assert.strictEqual(inside.traceId, span.traceId)
      assert.strictEqual(inside.spanId, span.spanId)
      assert.strictEqual(outside.message, "outside")
      assert.notProperty(outside, "traceId")
    })
  )

  it.effect("the JSON format is the traced one exactly when OTEL_EXPORTER_OTLP_ENDPOINT is set", () =>
    Effect.gen(function* () {
      const lineIn = (env: Record<string, string>) =>
        Effect.gen(function* () {
          yield* Effect.logWarning("in a span").pipe(Effect.withSpan("work"))
          // The CLI's form (stderr) writes each line at once.
          const written = yield* TestConsole.errorLines
          return JSON.parse(String(written.at(-1)))
        }).pipe(
          Effect.scoped,
          Effect.provide(loggingWith({ LOG_FORMAT: "json", ...env }, { stderr: true })),
          Effect.provide(TestConsole.layer)
        )
      assert.notProperty(yield* lineIn({}), "traceId")
      assert.property(yield* lineIn({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }), "traceId")
    })
  )
})
