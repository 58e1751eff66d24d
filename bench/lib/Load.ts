import autocannon from "autocannon"
import { cpuMs, sampleRss } from "./Children.ts"
import type { DbWaits, makeDbWaitSampler } from "./DbWaits.ts"
import type { Scenario, ScenarioId } from "./Scenarios.ts"

export type TargetId = "service" | "plain" | "static" | "peer" | "service-pglite"

export interface Target {
  readonly id: TargetId
  readonly port: number
  readonly pid: number
  /** The application_name of its PostgreSQL sessions on the bench database, when it has any. */
  readonly applicationName?: string | undefined
}

export interface Row {
  readonly scenario: ScenarioId
  readonly target: TargetId
  readonly connections: number
  readonly durationSeconds: number
  /** Mean of autocannon's per-second samples. */
  readonly requestsPerSecond: number
  readonly requestsTotal: number
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number }
  /** Connection errors and timeouts. */
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  readonly statusCodes: Record<string, number>
  /** Highest VmRSS of the target process seen during the run (sampled every 100 ms). */
  readonly peakRssMb: number
  /**
   * CPU time (user + system) the target process spent per completed request: a measure of its own
   * cost that holds up better than req/s on a machine shared with other work.
   */
  readonly cpuMsPerRequest: number
  /** Bearer tokens minted inside the timed path because the pre-minted pool was too small. */
  readonly tokensMintedInRun: number
  /** Its PostgreSQL sessions during the run (average sessions per state), when sampled. */
  readonly dbWaits: DbWaits | null
  /** Wall-clock window of the load on CLOCK_MONOTONIC, in µs (the clock of a V8 CPU profile). */
  readonly windowUs: { readonly start: number; readonly end: number }
}

// The one run in flight, so Ctrl-C can stop it instead of waiting for its end.
let current: autocannon.Instance | undefined
export const stopCurrentLoad = () => current?.stop()

/** Drives `target` with `scenario` at `connections` for `seconds` and reports the run. */
export const runLoad = async (
  scenario: Scenario,
  target: Target,
  connections: number,
  seconds: number,
  options: {
    readonly tag: string
    readonly expectedRequests: number
    readonly sampler?: ReturnType<typeof makeDbWaitSampler> | undefined
  }
): Promise<Row> => {
  const plan = await scenario.plan(options.tag, options.expectedRequests)
  const rss = sampleRss(target.pid)
  const waits =
    options.sampler !== undefined && target.applicationName !== undefined
      ? options.sampler.start(target.applicationName)
      : undefined
  const cpuBefore = cpuMs(target.pid) ?? 0
  const start = Number(process.hrtime.bigint() / 1000n)
  current = autocannon({
    url: `http://127.0.0.1:${target.port}`,
    connections,
    duration: seconds,
    timeout: 30,
    requests: plan.requests
  })
  const result = await current
  current = undefined
  const end = Number(process.hrtime.bigint() / 1000n)
  const cpuUsed = (cpuMs(target.pid) ?? cpuBefore) - cpuBefore
  const dbWaits = waits === undefined ? null : await waits.stop()
  const statusCodes: Record<string, number> = {}
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statusCodes[code] = count
  return {
    scenario: scenario.id,
    target: target.id,
    connections,
    durationSeconds: result.duration,
    requestsPerSecond: result.requests.average,
    requestsTotal: result.requests.total,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max
    },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
    peakRssMb: rss.stop(),
    cpuMsPerRequest: result.requests.total > 0 ? cpuUsed / result.requests.total : 0,
    tokensMintedInRun: plan.overflow(),
    dbWaits,
    windowUs: { start, end }
  }
}
