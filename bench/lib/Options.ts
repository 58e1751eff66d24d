export interface Options {
  /** Seconds per measured run. */
  readonly durationSeconds: number
  /** Seconds of unrecorded load per scenario and target before its first run (JIT, pools, caches). */
  readonly warmupSeconds: number
  readonly connections: ReadonlyArray<number>
  readonly quick: boolean
  readonly profile: boolean
  readonly embedded: boolean
  /** Only the profiled run (after a change, to look at the flame again). */
  readonly profileOnly: boolean
}

const USAGE = `usage: npm run bench [-- --quick] [-- --no-profile] [-- --no-embedded] [-- --profile-only]
  --quick         3 s per run (a smoke run; BENCH_DURATION, when set, still wins)
  --no-profile    skip the --cpu-prof run of the service
  --no-embedded   skip the embedded database (PGlite) runs and its cold starts
  --profile-only  only the --cpu-prof run (no table, no ratios, no embedded database)
  BENCH_DURATION=<seconds>  seconds per run (default 10)
  DATABASE_URL=<url>        bench this database instead of a fresh one on postgres://postgres@127.0.0.1:5432`

export const parseOptions = (argv: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Options => {
  const known = new Set(["--quick", "--no-profile", "--no-embedded", "--profile-only"])
  for (const arg of argv) {
    if (arg === "--help" || arg === "-h") {
      console.log(USAGE)
      process.exit(0)
    }
    if (!known.has(arg)) throw new Error(`unknown argument ${arg}\n${USAGE}`)
  }
  const quick = argv.includes("--quick")
  const fromEnv = env.BENCH_DURATION === undefined || env.BENCH_DURATION === "" ? undefined : Number(env.BENCH_DURATION)
  if (fromEnv !== undefined && !(Number.isFinite(fromEnv) && fromEnv >= 1)) {
    throw new Error(`BENCH_DURATION must be a number of seconds ≥ 1, not ${env.BENCH_DURATION}`)
  }
  const durationSeconds = fromEnv ?? (quick ? 3 : 10)
  return {
    durationSeconds,
    warmupSeconds: quick ? 1 : Math.min(3, durationSeconds),
    connections: [1, 16, 64],
    quick,
    profile: !argv.includes("--no-profile"),
    embedded: !argv.includes("--no-embedded") && !argv.includes("--profile-only"),
    profileOnly: argv.includes("--profile-only")
  }
}
