import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { tokenFor } from "@payments-gaming/adapters/test/support/TestSecrets"
import { Effect } from "effect"
import { pollUntil, send } from "./Http.ts"
import { CLI, type Running, runNode, SERVER, spawnNode, tempDir } from "./NodeProcess.ts"

/**
 * The service and the CLI on the embedded database (no DATABASE_URL), as a developer runs them:
 * their secrets are the development secrets generated into DATA_DIR, and the lock file
 * DATA_DIR/owner.json says which process owns the directory and where it answers.
 */

export interface Owner {
  readonly pid: number
  readonly startedAt: string
  readonly nonce: string
  readonly url?: string
}

export const lockFile = (dataDir: string) => join(dataDir, "owner.json")

/** The lock file as written, or `undefined` when there is none (or it is half written). */
export const readLock = (dataDir: string): Owner | undefined => {
  if (!existsSync(lockFile(dataDir))) return undefined
  try {
    return JSON.parse(readFileSync(lockFile(dataDir), "utf8"))
  } catch {
    return undefined
  }
}

/** The lock file's exact bytes, to show a command left it untouched. */
export const lockBytes = (dataDir: string) => readFileSync(lockFile(dataDir), "utf8")

/** One of the development secrets generated into `dataDir`. */
export const devSecret = (dataDir: string, name: string): string =>
  JSON.parse(readFileSync(join(dataDir, "dev-secrets.json"), "utf8"))[name]

/** The pretty log line the server writes (and the CLI, on stderr): `[12:00:00.000] WARN (#2): …`. */
export const LOG_LINE = /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) \(#\d+\): /

/** The log lines at `level` (a multi-line message counts once, by its first line). */
export const linesAt = (output: string, level: string) =>
  output.split("\n").filter((line) => LOG_LINE.exec(line)?.[1] === level)

/**
 * Waits until `server` owns `dataDir` with its URL in the lock file (what the CLI reads) and
 * /readyz answers 200. A service that dies first fails at once, with its output.
 */
export const untilServing = (dataDir: string, server: Running, timeoutMs = 180_000) =>
  Effect.gen(function* () {
    const output = () => `\n--- stdout ---\n${server.stdout()}\n--- stderr ---\n${server.stderr()}`
    const advertised = Effect.gen(function* () {
      for (;;) {
        const owner = readLock(dataDir)
        if (owner?.pid === server.pid && owner.url !== undefined) return owner
        yield* Effect.sleep("100 millis")
      }
    })
    const died = server
      .exit(timeoutMs)
      .pipe(Effect.flatMap((exit) => Effect.fail(new Error(`service exited ${JSON.stringify(exit)}${output()}`))))
    const owner = yield* Effect.raceFirst(advertised, died)
    const url = owner.url as string
    const port = Number(new URL(url).port)
    yield* pollUntil(port, "/readyz", (answer) => answer.status === 200, 30_000).pipe(
      Effect.mapError((error) => new Error(`${error.message}${output()}`))
    )
    return { server, owner, url, port }
  })

/** The service on the embedded database in `dataDir`, on a port the kernel picks, once serving. */
export const startService = (dataDir: string, timeoutMs = 180_000) =>
  spawnService(dataDir).pipe(Effect.flatMap((server) => untilServing(dataDir, server, timeoutMs)))

/** The service process on the embedded database in `dataDir`, just spawned: not yet serving. */
export const spawnService = (dataDir: string) =>
  spawnNode(SERVER, [], { HOST: "127.0.0.1", PORT: "0", DATA_DIR: dataDir })

/** A fresh DATA_DIR named after `prefix`, and the service just spawned on it. */
export const serviceInFreshDir = (prefix: string) =>
  Effect.gen(function* () {
    const dataDir = yield* tempDir(prefix)
    return { dataDir, service: yield* spawnService(dataDir) }
  })

/** A CLI command on `dataDir`, to completion (generous: a first start creates the database). */
export const cli = (dataDir: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  runNode(CLI, args, { DATA_DIR: dataDir, ...env }, 180_000)

/** An admin bearer token signed with the development AUTH_JWT_SECRET of `dataDir`. */
export const adminToken = (dataDir: string) => tokenFor("ops", ["admin"], 3600, devSecret(dataDir, "AUTH_JWT_SECRET"))

/**
 * PUT /v1/admin/virtual-accounts/{n} on the service: 201 linked now, 200 already linked the same
 * way, 409 linked to another user. So it also reads whether a link exists.
 */
export const putLink = (port: number, token: string, accountNumber: string, userId: string) =>
  send(port, `/v1/admin/virtual-accounts/${accountNumber}`, {
    method: "PUT",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ userId, currency: "NGN" })
  }).pipe(Effect.map((answer) => answer.status))
