// The collector's pauses and the event loop's delay in a running server, for comparing two servers
// under the same load (issue 16: the tail follows the collector). Load it into any Node process:
//
//   NODE_OPTIONS=--import=/abs/path/bench/probes/collector.mjs npm start
//   node ../shared/bench/run.mjs … --env NODE_OPTIONS=--import=$PWD/bench/probes/collector.mjs
//
// On exit, a process that ran at least PROBE_MIN_SECONDS (2: skips npm and the start scripts)
// writes collector-<pid>.json into PROBE_DIR (default: the working directory): its script, the
// event-loop delay percentiles, and the count, total and percentiles of scavenges and of full
// (mark-compact) collections, in milliseconds. Plain JavaScript, so it loads before anything else.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { constants, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks"

const delay = monitorEventLoopDelay({ resolution: 5 })
delay.enable()
const scavenges = []
const fullCollections = []
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = entry.detail?.kind
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges.push(entry.duration)
    else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) fullCollections.push(entry.duration)
  }
}).observe({ entryTypes: ["gc"] })

const percentile = (sorted, p) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
const pauses = (durations) => {
  const sorted = [...durations].sort((a, b) => a - b)
  const round = (n) => Math.round(n * 10) / 10
  return {
    count: sorted.length,
    totalMs: round(sorted.reduce((sum, d) => sum + d, 0)),
    p50Ms: round(percentile(sorted, 0.5)),
    p99Ms: round(percentile(sorted, 0.99)),
    maxMs: round(sorted.at(-1) ?? 0)
  }
}
const ms = (nanoseconds) => Math.round(nanoseconds / 1e5) / 10

process.on("exit", () => {
  if (process.uptime() < Number(process.env.PROBE_MIN_SECONDS ?? 2)) return
  const report = {
    script: process.argv[1],
    uptimeSeconds: Math.round(process.uptime()),
    eventLoopDelayMs: {
      p50: ms(delay.percentile(50)),
      p90: ms(delay.percentile(90)),
      p99: ms(delay.percentile(99)),
      max: ms(delay.max)
    },
    scavenges: pauses(scavenges),
    fullCollections: pauses(fullCollections)
  }
  writeFileSync(
    join(process.env.PROBE_DIR ?? ".", `collector-${process.pid}.json`),
    `${JSON.stringify(report, null, 2)}\n`
  )
})
