// When a running server is slow, and what it was doing then (issue 35): a timeline in 50 ms steps of
// the requests it started and finished, how long they were held (Node's 'request' event to the
// response's 'finish', by the step the request started in), the collector's pauses and the event
// loop's longest delay. The other probes give a run's percentiles; this one shows whether the slow
// requests come in bursts (the start of a round, a collection, a background job) or all along.
// Load it like collector.mjs (NODE_OPTIONS=--import=/abs/path/bench/probes/timeline.mjs).
//
// On exit, a process that ran at least PROBE_MIN_SECONDS (2) writes timeline-<pid>.txt into
// PROBE_DIR (default: the working directory), one line per step with a request or a pause in it:
// seconds since start, requests started, requests finished, longest and mean held ms, scavenge ms,
// full-collection ms, longest event-loop delay ms. Sum it per second with awk, e.g.
//   awk 'NR>1 {s=int($1); n[s]+=$3; if ($4>m[s]) m[s]=$4} END {for (s in n) print s, n[s], m[s]}'
import { subscribe } from "node:diagnostics_channel"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { constants, PerformanceObserver } from "node:perf_hooks"

const STEP_MS = 50
const TICK_MS = 5
const origin = performance.now()
const steps = new Map()
const stepAt = (time) => {
  const index = Math.floor((time - origin) / STEP_MS)
  let step = steps.get(index)
  if (step === undefined) {
    step = { started: 0, finished: 0, longest: 0, held: 0, scavenges: 0, fullCollections: 0, delay: 0 }
    steps.set(index, step)
  }
  return step
}

// On the request under a symbol rather than in a WeakMap: the probe keeps no weak table of its own
// for the collector to process (slow-requests.mjs says why, and what the symbol costs instead).
const STARTED = Symbol("timeline.started")
subscribe("http.server.request.start", ({ request }) => {
  const now = performance.now()
  request[STARTED] = now
  stepAt(now).started++
})
subscribe("http.server.response.finish", ({ request }) => {
  const start = request[STARTED]
  if (start === undefined) return
  const held = performance.now() - start
  const step = stepAt(start)
  step.finished++
  step.held += held
  if (held > step.longest) step.longest = held
})

new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const step = stepAt(entry.startTime)
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) step.fullCollections += entry.duration
    else step.scavenges += entry.duration
  }
}).observe({ entryTypes: ["gc"] })

// A timer due every TICK_MS that fires late by d was kept from running for d by the event loop.
let lastTick = performance.now()
setInterval(() => {
  const now = performance.now()
  const step = stepAt(now)
  step.delay = Math.max(step.delay, now - lastTick - TICK_MS)
  lastTick = now
}, TICK_MS).unref()

process.on("exit", () => {
  if (process.uptime() < Number(process.env.PROBE_MIN_SECONDS ?? 2)) return
  const fixed = (n) => n.toFixed(1)
  const lines = [...steps]
    .filter(([, step]) => step.started + step.finished + step.scavenges + step.fullCollections > 0)
    .sort(([a], [b]) => a - b)
    .map(([index, step]) =>
      [
        ((index * STEP_MS) / 1000).toFixed(2),
        step.started,
        step.finished,
        fixed(step.longest),
        fixed(step.finished === 0 ? 0 : step.held / step.finished),
        fixed(step.scavenges),
        fixed(step.fullCollections),
        fixed(step.delay)
      ].join(" ")
    )
  writeFileSync(
    join(process.env.PROBE_DIR ?? ".", `timeline-${process.pid}.txt`),
    `seconds started finished longestMs meanMs scavengeMs fullCollectionMs loopDelayMs\n${lines.join("\n")}\n`
  )
})
