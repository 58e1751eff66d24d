import { spawn } from "node:child_process"
import { existsSync, realpathSync } from "node:fs"
import { constants } from "node:os"
import { dirname, join } from "node:path"
import { Data, Effect } from "effect"
import { Command } from "effect/cli"
import { stopOnSignalIsClean } from "./Runtime.ts"

/** The HTTP service's own executable (apps/http's bin), which npm links beside this CLI's. */
const SERVICE_BIN = "payments-gaming-service"

export class ServeFailed extends Data.TaggedError("ServeFailed")<{ readonly message: string }> {}

/** `node_modules/.bin/payments-gaming-service`, looked for upwards from this file, as Node looks for packages. */
const findService = (): string | undefined => {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", ".bin", SERVICE_BIN)
    if (existsSync(candidate)) return realpathSync(candidate)
    if (dirname(dir) === dir) return undefined
  }
}

/** The exit code a shell gives a process that `code` or `signal` ended. */
const exitCodeOf = (code: number | null, signal: NodeJS.Signals | null) =>
  code ?? (signal === null ? 1 : 128 + (constants.signals[signal] ?? 0))

/**
 * Runs the service in a child process, on this Node with this process's flags, sharing the terminal.
 * The CLI does not load the HTTP app (nothing imports an app): it runs the app's executable, as
 * `git <command>` runs `git-<command>`. A SIGTERM or SIGINT to the CLI is passed on, and the CLI
 * ends when the service has shut down gracefully; a service that stops by itself (a start-up
 * failure, say) leaves its exit code as the CLI's.
 */
const runService = (entry: string) =>
  Effect.callback<number>((resume) => {
    // glibc reads MALLOC_ARENA_MAX when the process starts, so it is set here, as npm start sets it
    // (docs/operations.md §1), unless the operator chose a value (empty counts as none, as in the shell).
    const env = { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX || "2" }
    const child = spawn(process.execPath, [...process.execArgv, entry], { stdio: "inherit", env })
    child.once("error", (error) => resume(Effect.die(error)))
    child.once("exit", (code, signal) => resume(Effect.succeed(exitCodeOf(code, signal))))
    // Interrupted (a signal to the CLI): stop the service, and wait for it to finish its requests.
    return Effect.callback<void>((stopped) => {
      if (child.exitCode !== null || child.signalCode !== null) return stopped(Effect.void)
      child.once("exit", () => stopped(Effect.void))
      child.kill("SIGTERM")
    })
  })

export const serve = Command.make("serve", {}, () =>
  Effect.gen(function* () {
    const entry = findService()
    if (entry === undefined) {
      return yield* new ServeFailed({
        message: `the service's executable (${SERVICE_BIN}) is not installed beside this CLI: run npm ci`
      })
    }
    stopOnSignalIsClean()
    const code = yield* runService(entry)
    if (code !== 0) process.exitCode = code
  })
).pipe(
  Command.withDescription(
    "Start the HTTP service (PORT, HOST; DATABASE_URL or the embedded database under DATA_DIR). " +
      "SIGTERM or SIGINT stops it gracefully."
  )
)
