import type { ScenarioId } from "./Scenarios.ts"

export interface Options {
  /** Seconds per measured run. */
  readonly durationSeconds: number
  /** Seconds of unrecorded load per scenario and target before its first run (JIT, pools, caches). */
  readonly warmupSeconds: number
  readonly connections: ReadonlyArray<number>
  /** The scenarios to run; all five unless `--scenario` names some. */
  readonly scenarios: ReadonlyArray<ScenarioId>
  readonly quick: boolean
  readonly profile: boolean
  readonly embedded: boolean
  /** Only the profiled run (after a change, to look at the flame again). */
  readonly profileOnly: boolean
}

const SCENARIOS: ReadonlyArray<ScenarioId> = ["wheel-view", "webhook", "cards", "spin", "spin-returning"]
const CONNECTIONS = [1, 16, 64]

const USAGE = `usage: npm run bench [-- --quick] [-- --no-profile] [-- --no-embedded] [-- --profile-only]
                 [-- --scenario <id>[,<id>…]] [-- --connections <n>[,<n>…]]
  --quick         3 s per run (a smoke run; BENCH_DURATION, when set, still wins)
  --no-profile    skip the --cpu-prof run of the service
  --no-embedded   skip the embedded database (PGlite) runs and its cold starts
  --profile-only  only the --cpu-prof run (no table, no ratios, no embedded database)
  --scenario      only these scenarios (${SCENARIOS.join(", ")}); to iterate on one after a change
  --connections   only these connection counts (of ${CONNECTIONS.join(", ")}); the profile always uses 64
  BENCH_DURATION=<seconds>  seconds per run (default 10)
  DATABASE_URL=<url>        bench this database instead of a fresh one on postgres://postgres@127.0.0.1:5432`

const fail = (message: string): never => {
  throw new Error(`${message}\n${USAGE}`)
}

/** The comma-separated value of `--name value` or `--name=value`, if given. */
const listOf = (argv: ReadonlyArray<string>, name: string, at: number): [ReadonlyArray<string>, number] => {
  const arg = argv[at]!
  const inline = arg.startsWith(`${name}=`) ? arg.slice(name.length + 1) : undefined
  const value = inline ?? argv[at + 1]
  if (value === undefined || value === "" || value.startsWith("--")) fail(`${name} needs a value`)
  return [(value as string).split(",").map((item) => item.trim()), inline === undefined ? at + 1 : at]
}

export const parseOptions = (argv: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Options => {
  const flags = new Set<string>()
  let scenarios = SCENARIOS
  let connections = CONNECTIONS
  for (let at = 0; at < argv.length; at++) {
    const arg = argv[at]!
    if (arg === "--help" || arg === "-h") {
      console.log(USAGE)
      process.exit(0)
    }
    if (arg === "--scenario" || arg.startsWith("--scenario=")) {
      const [ids, last] = listOf(argv, "--scenario", at)
      for (const id of ids) if (!SCENARIOS.includes(id as ScenarioId)) fail(`unknown scenario ${id}`)
      scenarios = SCENARIOS.filter((id) => ids.includes(id))
      at = last
    } else if (arg === "--connections" || arg.startsWith("--connections=")) {
      const [counts, last] = listOf(argv, "--connections", at)
      for (const count of counts) if (!CONNECTIONS.includes(Number(count))) fail(`unknown connection count ${count}`)
      connections = CONNECTIONS.filter((count) => counts.includes(String(count)))
      at = last
    } else if (["--quick", "--no-profile", "--no-embedded", "--profile-only"].includes(arg)) {
      flags.add(arg)
    } else {
      fail(`unknown argument ${arg}`)
    }
  }
  const quick = flags.has("--quick")
  const fromEnv = env.BENCH_DURATION === undefined || env.BENCH_DURATION === "" ? undefined : Number(env.BENCH_DURATION)
  if (fromEnv !== undefined && !(Number.isFinite(fromEnv) && fromEnv >= 1)) {
    throw new Error(`BENCH_DURATION must be a number of seconds ≥ 1, not ${env.BENCH_DURATION}`)
  }
  const durationSeconds = fromEnv ?? (quick ? 3 : 10)
  return {
    durationSeconds,
    warmupSeconds: quick ? 1 : Math.min(3, durationSeconds),
    connections,
    scenarios,
    quick,
    profile: !flags.has("--no-profile"),
    embedded: !flags.has("--no-embedded") && !flags.has("--profile-only"),
    profileOnly: flags.has("--profile-only")
  }
}
