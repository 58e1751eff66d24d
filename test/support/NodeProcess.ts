import { type ChildProcessByStdio, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Readable } from "node:stream"
import { it } from "@effect/vitest"
import { Effect, type Scope } from "effect"
import { inject } from "vitest"

export const ROOT = join(import.meta.dirname, "..", "..")
/** The pinned Node 24; the system node cannot run the sources. */
export const NODE = join(ROOT, "node_modules", ".bin", "node")
export const CLI = "apps/cli/src/main.js"
/** The server as `npm start` runs it: the bundle of apps/http/src/main.js built for this run (bundleSetup.ts). */
export const SERVER = inject("serverBundle")

/**
 * A clean environment: nothing of the test runner's own (vitest sets NODE_ENV=test, and a developer's
 * shell may carry DATABASE_URL or secrets) leaks into the process under test.
 */
const environment = (env: Record<string, string>) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: process.env.HOME ?? tmpdir(),
  ...env
})

const start = (script: string, args: ReadonlyArray<string>, env: Record<string, string>) =>
  spawn(NODE, ["--conditions=payments-gaming-source", script, ...args], {
    cwd: ROOT,
    env: environment(env),
    stdio: ["ignore", "pipe", "pipe"]
  })

/** A temporary directory (a DATA_DIR), removed with the scope. */
export const tempDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), prefix))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/** A real-time test (processes, sockets, real clocks) given a fresh temporary directory named after `prefix`. */
export const itInTempDir = <A, E>(
  title: string,
  prefix: string,
  body: (dir: string) => Effect.Effect<A, E, Scope.Scope>,
  timeout: number
) => it.live(title, () => Effect.flatMap(tempDir(prefix), body), timeout)

export interface Completed {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a script to completion (killed after `timeoutMs`, or when the effect is interrupted). */
export const runNode = (script: string, args: ReadonlyArray<string>, env: Record<string, string>, timeoutMs = 30_000) =>
  Effect.callback<Completed>((resume) => {
    const child = start(script, args, env)
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.once("error", (error) => {
      clearTimeout(timer)
      resume(Effect.die(error))
    })
    child.once("close", (code, signal) => {
      clearTimeout(timer)
      resume(Effect.succeed({ code, signal, stdout, stderr }))
    })
    return Effect.sync(() => {
      clearTimeout(timer)
      child.kill("SIGKILL")
    })
  })

export const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) => runNode(CLI, args, env)

export interface Running {
  readonly pid: number
  readonly stdout: () => string
  readonly stderr: () => string
  /** Resolves with the first match of `pattern` on stdout; fails when the process exits first or on timeout. */
  readonly waitForStdout: (pattern: RegExp, timeoutMs: number) => Effect.Effect<RegExpExecArray, Error>
  readonly kill: (signal: NodeJS.Signals) => Effect.Effect<void>
  /** The exit, or a failure after `timeoutMs`. */
  readonly exit: (timeoutMs: number) => Effect.Effect<{ code: number | null; signal: NodeJS.Signals | null }, Error>
}

/**
 * A long-running script (the server). SIGKILLed when the scope closes if it is still running, and
 * waited for, so no test leaves a process behind.
 */
export const spawnNode = (script: string, args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child: ChildProcessByStdio<null, Readable, Readable> = start(script, args, env)
      let stdout = ""
      let stderr = ""
      let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk
      })
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk
      })
      const closed = new Promise<void>((resolve) => {
        child.once("close", (code, signal) => {
          exited = { code, signal }
          resolve()
        })
      })
      const describe = () => `\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`

      const waitForStdout = (pattern: RegExp, timeoutMs: number) =>
        Effect.callback<RegExpExecArray, Error>((resume) => {
          const check = () => {
            const match = pattern.exec(stdout)
            if (match !== null) {
              done()
              resume(Effect.succeed(match))
            } else if (exited !== undefined) {
              done()
              resume(
                Effect.fail(new Error(`process exited (${JSON.stringify(exited)}) before ${pattern}${describe()}`))
              )
            }
          }
          const timer = setTimeout(() => {
            done()
            resume(Effect.fail(new Error(`no ${pattern} on stdout within ${timeoutMs} ms${describe()}`)))
          }, timeoutMs)
          const onClose = () => check()
          const done = () => {
            clearTimeout(timer)
            child.stdout.off("data", check)
            child.off("close", onClose)
          }
          child.stdout.on("data", check)
          child.on("close", onClose)
          check()
          return Effect.sync(done)
        })

      const exit = (timeoutMs: number) =>
        Effect.callback<{ code: number | null; signal: NodeJS.Signals | null }, Error>((resume) => {
          const timer = setTimeout(
            () => resume(Effect.fail(new Error(`process still running after ${timeoutMs} ms${describe()}`))),
            timeoutMs
          )
          void closed.then(() => {
            clearTimeout(timer)
            if (exited !== undefined) resume(Effect.succeed(exited))
          })
          return Effect.sync(() => clearTimeout(timer))
        })

      return {
        child,
        closed,
        running: {
          pid: child.pid ?? -1,
          stdout: () => stdout,
          stderr: () => stderr,
          waitForStdout,
          kill: (signal: NodeJS.Signals) =>
            Effect.sync(() => {
              child.kill(signal)
            }),
          exit
        } satisfies Running
      }
    }),
    ({ child, closed }) =>
      Effect.promise(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
        return closed
      })
  ).pipe(Effect.map(({ running }) => running))
