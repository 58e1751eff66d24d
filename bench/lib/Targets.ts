import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { type Child, freePort, ROOT, spawnNode, waitReady } from "./Children.ts"
import type { Target, TargetId } from "./Load.ts"
import { SECRETS } from "./Secrets.ts"

export interface Started extends Target {
  readonly child: Child
  /** Milliseconds from spawn to the first 200 on the readiness path. */
  readonly readyMs: number
}

const COMMON = {
  ...SECRETS,
  DEFAULT_CURRENCY: "NGN",
  WHEEL_TIMEZONE: "Africa/Lagos",
  APP_TIMEZONE: "UTC",
  // The service's default pool (postgres/PostgresClient.ts), given to the plain reference too.
  DATABASE_MAX_CONNECTIONS: "20"
}

/** The node flags package.json's `script` gives `entry` (`exec node <flags> <entry>`). */
const scriptFlags = (script: string, entry: string): ReadonlyArray<string> => {
  const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>
  const command = scripts[script] ?? ""
  const at = command.indexOf(` ${entry}`)
  const exec = command.lastIndexOf("exec node ", at)
  if (at === -1 || exec === -1)
    throw new Error(`package.json's ${script} script no longer reads "exec node … ${entry}"`)
  return command
    .slice(exec + "exec node ".length, at)
    .split(" ")
    .filter((flag) => flag !== "")
}

/**
 * The V8 flags `npm start` gives the service (package.json), so the bench measures the service as
 * it is run: the heap settings decide much of its peak RSS.
 */
export const startFlags = (): ReadonlyArray<string> =>
  scriptFlags("start", "apps/http/dist/bundle/main.js").filter((flag) => !flag.startsWith("--conditions="))

/** The flags `npm run cli` gives the CLI (package.json), so a bench times the CLI as operators run it. */
export const cliFlags = (): ReadonlyArray<string> => scriptFlags("cli", "apps/cli/src/main.js")

const start = async (
  id: TargetId,
  script: string,
  env: Record<string, string>,
  readiness: string,
  nodeArgs: ReadonlyArray<string> = [],
  applicationName?: string,
  cwd?: string
): Promise<Started> => {
  const port = await freePort()
  const spawnedAt = process.hrtime.bigint()
  const child = spawnNode(id, script, { ...COMMON, ...env, PORT: String(port) }, nodeArgs, cwd)
  const readyMs = await waitReady(child, port, readiness, spawnedAt)
  return { id, port, pid: child.pid, child, readyMs, applicationName }
}

/**
 * The bundle `npm start` runs (scripts/bundle-service.mjs), built first if it is missing or was
 * built from other sources, so the bench measures the code in the working tree.
 */
export const bundleService = () => {
  execFileSync(process.execPath, [join(ROOT, "scripts", "bundle-service.mjs"), "--if-stale"], { stdio: "inherit" })
}

/**
 * The real service (the bundle of apps/http/src/main.js that `npm start` runs) in production mode:
 * every secret given, JSON logs at warn (a line per request would dominate), development secrets
 * never generated. Without `databaseUrl` it opens the embedded database in `dataDir`.
 */
export const startService = (options: {
  readonly id: "service" | "service-pglite"
  readonly databaseUrl: string | undefined
  readonly dataDir: string
  readonly nodeArgs?: ReadonlyArray<string>
}) =>
  start(
    options.id,
    "apps/http/dist/bundle/main.js",
    {
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      LOG_FORMAT: "json",
      // All load comes from 127.0.0.1 and spin users are one-shot: limits this high keep the
      // limiters in the path (their cost is part of the service) without ever refusing a request.
      RATE_LIMIT_PER_IP: "1000000000",
      RATE_LIMIT_PER_USER: "1000000000",
      DATA_DIR: options.dataDir,
      // Production refuses the embedded database unless it is asked for on purpose.
      ...(options.databaseUrl === undefined ? { EMBEDDED_DATABASE: "allow" } : { DATABASE_URL: options.databaseUrl })
    },
    "/readyz",
    [...startFlags(), ...(options.nodeArgs ?? [])],
    // The service names its pool "payments-gaming" (PostgresClient.ts); on PGlite nothing is sampled.
    options.databaseUrl === undefined ? undefined : "payments-gaming"
  )

/**
 * bench/reference-server.ts: the plain node:http server on `databaseUrl`, or the static one. They
 * run with the service's V8 flags too, so the ratios compare code, not heap settings.
 */
export const startReference = (mode: "plain" | "static", databaseUrl: string, nodeArgs: ReadonlyArray<string> = []) =>
  start(
    mode,
    "bench/reference-server.ts",
    { REFERENCE_MODE: mode, ...(mode === "plain" ? { DATABASE_URL: databaseUrl } : {}) },
    mode === "plain" ? "/readyz" : "/",
    [...startFlags(), ...nodeArgs],
    mode === "plain" ? "bench-reference" : undefined
  )

/**
 * The bar issue 16 sets: the conventional Fastify + node-postgres implementation of the same
 * contract in ../shared/peers/fastify-pg, on its own database (its schema is its own), with the
 * same secrets and log level as the service, started as its `npm start` does (`node src/server.js`,
 * default V8 flags). `undefined`, with the reason, when the folder or its `npm ci` is missing.
 */
export const PEER_DIR = join(ROOT, "..", "shared", "peers", "fastify-pg")

export const peerMissing = (): string | undefined =>
  !existsSync(join(PEER_DIR, "src", "server.js"))
    ? `no peer at ${PEER_DIR}`
    : !existsSync(join(PEER_DIR, "node_modules", "fastify"))
      ? `the peer's dependencies are not installed (cd ${PEER_DIR} && npm ci)`
      : undefined

export const startPeer = (databaseUrl: string) =>
  start(
    "peer",
    "src/server.js",
    { NODE_ENV: "production", HOST: "127.0.0.1", LOG_LEVEL: "warn", DATABASE_URL: databaseUrl },
    "/readyz",
    [],
    undefined,
    PEER_DIR
  )
