// The collector's pauses and the event loop's delay in a running server, for comparing two servers
// under the same load (issue 16: the tail follows the collector). Load it into any Node process:
//
//   NODE_OPTIONS=--import=/abs/path/bench/probes/collector.mjs npm start
//   node ../shared/bench/run.mjs … --env NODE_OPTIONS=--import=$PWD/bench/probes/collector.mjs
//
// On exit, a process that ran at least PROBE_MIN_SECONDS (2: skips npm and the start scripts)
// writes collector-<pid>.json into PROBE_DIR (default: the working directory): its script, the
// event-loop delay percentiles, and the count, total and percentiles of scavenges and of full
// (mark-compact) collections, in milliseconds, and what the scavenges promoted: the bytes the old
// generation grew by across each one (V8's GCProfiler), in all and per HTTP request served. A request
// whose objects outlive two scavenges reaches the old generation and costs a full collection later:
// the seventeenth session's spin promoted 3.4 KB per request, most of it kept by generator
// functions made per request (docs/benchmarks.md). PROBE_FROM_SECONDS (default 0) starts counting
// that long after the process started, leaving out its start-up and a warm-up round. Plain
// JavaScript, so it loads before anything else.
import { subscribe } from "node:diagnostics_channel"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { constants, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks"
import { GCProfiler } from "node:v8"

const delay = monitorEventLoopDelay({ resolution: 5 })
delay.enable()
const profiler = new GCProfiler()
profiler.start()
let requests = 0
subscribe("http.server.request.start", () => {
  requests++
})
// The old generation's used bytes: its regular and its large-object space.
const oldBytes = (spaces) =>
  spaces.reduce(
    (sum, space) =>
      space.spaceName === "old_space" || space.spaceName === "large_object_space" ? sum + space.spaceUsedSize : sum,
    0
  )
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
// Counting afresh from PROBE_FROM_SECONDS: what start-up compiled and promoted is not a request's.
const fromSeconds = Number(process.env.PROBE_FROM_SECONDS ?? 0)
// What the report counted from: 0 until the reset has run (a process that exits sooner says so).
let countedFromSeconds = 0
if (fromSeconds > 0) {
  setTimeout(() => {
    countedFromSeconds = fromSeconds
    profiler.stop()
    profiler.start()
    delay.reset()
    requests = 0
    scavenges.length = 0
    fullCollections.length = 0
  }, fromSeconds * 1000).unref()
}

const ms = (nanoseconds) => Math.round(nanoseconds / 1e5) / 10

process.on("exit", () => {
  if (process.uptime() < Number(process.env.PROBE_MIN_SECONDS ?? 2)) return
  let promoted = 0
  for (const gc of profiler.stop()?.statistics ?? []) {
    if (gc.gcType !== "Scavenge") continue
    // Concurrent sweeping can shrink the old generation during a scavenge: a growth is counted, never a loss.
    promoted += Math.max(0, oldBytes(gc.afterGC.heapSpaceStatistics) - oldBytes(gc.beforeGC.heapSpaceStatistics))
  }
  const report = {
    script: process.argv[1],
    uptimeSeconds: Math.round(process.uptime()),
    countedFromSeconds,
    eventLoopDelayMs: {
      p50: ms(delay.percentile(50)),
      p90: ms(delay.percentile(90)),
      p99: ms(delay.percentile(99)),
      max: ms(delay.max)
    },
    scavenges: pauses(scavenges),
    fullCollections: pauses(fullCollections),
    requests,
    promotedMB: Math.round(promoted / 1e5) / 10,
    promotedKBPerRequest: requests === 0 ? null : Math.round(promoted / requests / 10.24) / 100
  }
  writeFileSync(
    join(process.env.PROBE_DIR ?? ".", `collector-${process.pid}.json`),
    `${JSON.stringify(report, null, 2)}\n`
  )
})
