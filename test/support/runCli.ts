import { execFile } from "node:child_process"
import { join } from "node:path"
import { Effect } from "effect"

const root = join(import.meta.dirname, "..", "..")
const node = join(root, "node_modules", ".bin", "node")

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs the real CLI (`apps/cli/src/main.ts`) in a child process with the given environment. */
export const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.callback<CliResult>((resume) => {
    execFile(
      node,
      ["--conditions=payments-gaming-source", join(root, "apps/cli/src/main.ts"), ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? "", ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
        resume(Effect.succeed({ code, stdout, stderr }))
      }
    )
  })
