// What a server's slowest requests overlapped (issue 35: attribute the tail). Every request held at
// least PROBE_SLOW_MS (default 10) from Node's 'request' event to the response's 'finish' is kept
// with its start and end, beside every pause of the collector on the main thread and every tick of
// a 5 ms timer that fired 2 ms or more late. A tail whose slow requests sat through a pause is the
// collector's; one whose slow requests saw none waited on something else (the database, the CPU).
// A request that never finished (its client went away) is not counted. Load it like collector.mjs
// (NODE_OPTIONS=--import=/abs/path/bench/probes/slow-requests.mjs).
//
// On exit, a process that served a request and ran at least PROBE_MIN_SECONDS (2) writes
// slow-requests-<pid>.json into PROBE_DIR (default: the working directory). Summarise it with
//   node bench/probes/slow-requests.mjs FILE [FROM_SECONDS [TO_SECONDS]]
// which counts the slow requests that started in the window by what they overlapped: a full
// collection (its final pause, or a step of its incremental marking), only scavenges, or nothing.
// Per kind: the mean time held, the mean pause inside, and the mean and the largest of each
// request's longest timer lateness. Then how many started within NEAR_MS (300) of a full
// collection's pause, against the share of the window's time those stretches cover: V8 marks and
// sweeps concurrently around that pause, on other threads, so a request may be slowed by a full
// collection it never sat through (a correlation, not a proof).
//
// The start time rides on the request object under a symbol rather than in a WeakMap, so the probe
// keeps no weak table of its own for the collector to process (docs/benchmarks.md, "Sixteenth
// session": a WeakMap can keep its young keys through scavenges). The symbol does change the
// request object's hidden class, so the probe is not free either; compare runs that both load it.
import { subscribe } from "node:diagnostics_channel"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { constants, PerformanceObserver } from "node:perf_hooks"
import { fileURLToPath } from "node:url"

const overlap = (from, to, start, end) => Math.max(0, Math.min(to, end) - Math.max(from, start))
const NEAR_MS = 300

/** Merges [from, to] intervals, so that overlapping ones are counted once. */
const merged = (intervals) => {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0])
  const out = []
  for (const [from, to] of sorted) {
    const last = out.at(-1)
    if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to)
    else out.push([from, to])
  }
  return out
}

const summarise = (file, fromSeconds, toSeconds) => {
  const { script, requests, slowMs, slow, pauses, late } = JSON.parse(readFileSync(file, "utf8"))
  const inWindow = slow.filter(([start]) => start / 1000 >= fromSeconds && start / 1000 < toSeconds)
  const kinds = { full: [], scavenge: [], none: [] }
  for (const [start, end] of inWindow) {
    let scavenge = 0
    let full = 0
    for (const [from, to, kind] of pauses) {
      const inside = overlap(from, to, start, end)
      if (kind === "scavenge") scavenge += inside
      else full += inside
    }
    // A tick at `at` that was `by` ms late was kept from running over [at - by, at].
    let delay = 0
    for (const [at, by] of late) if (overlap(at - by, at, start, end) > 0 && by > delay) delay = by
    kinds[full > 0 ? "full" : scavenge > 0 ? "scavenge" : "none"].push({
      held: end - start,
      paused: scavenge + full,
      delay
    })
  }
  const mean = (list, key) => (list.length === 0 ? 0 : list.reduce((sum, row) => sum + row[key], 0) / list.length)
  const largest = (list, key) => list.reduce((max, row) => Math.max(max, row[key]), 0)
  console.log(
    `${script}: ${requests} requests in all; ${inWindow.length} held ${slowMs} ms or more,` +
      ` started in [${fromSeconds}, ${toSeconds}) s`
  )
  for (const [kind, list] of Object.entries(kinds)) {
    console.log(
      `  ${kind.padEnd(8)} ${String(list.length).padStart(6)}  mean held ${mean(list, "held").toFixed(1)} ms,` +
        ` pauses inside ${mean(list, "paused").toFixed(1)} ms, loop late by ${mean(list, "delay").toFixed(1)} ms` +
        ` (mean of each one's longest; largest ${largest(list, "delay").toFixed(1)})`
    )
  }
  if (inWindow.length === 0) return
  // Near a full collection: starting within NEAR_MS of one of its final pauses, before or after.
  const near = merged(
    pauses.filter(([, , kind]) => kind === "full").map(([from, to]) => [from - NEAR_MS, to + NEAR_MS])
  )
  const count = inWindow.filter(([start]) => near.some(([from, to]) => start >= from && start <= to)).length
  const first = Math.max(fromSeconds * 1000, Math.min(...inWindow.map(([start]) => start)))
  const last = Math.min(toSeconds * 1000, Math.max(...inWindow.map(([, end]) => end)))
  const covered = near.reduce((sum, [from, to]) => sum + overlap(from, to, first, last), 0)
  const share = (part, whole) => (whole > 0 ? `${Math.round((100 * part) / whole)} %` : "-")
  console.log(
    `  within ${NEAR_MS} ms of a full collection: ${count} of them (${share(count, inWindow.length)}),` +
      ` in ${share(covered, last - first)} of the time from the first one's start to the last one's end`
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, from = "0", to = "Infinity"] = process.argv.slice(2)
  const fromSeconds = Number(from)
  const toSeconds = Number(to)
  if (file === undefined || Number.isNaN(fromSeconds) || Number.isNaN(toSeconds) || fromSeconds >= toSeconds) {
    console.error("usage: node bench/probes/slow-requests.mjs FILE [FROM_SECONDS [TO_SECONDS]], FROM below TO")
    process.exit(2)
  }
  summarise(file, fromSeconds, toSeconds)
} else {
  const slowMs = Number(process.env.PROBE_SLOW_MS ?? 10)
  const origin = performance.now()
  const since = (time) => Math.round((time - origin) * 10) / 10
  // Scavenges are minor collections; everything else on the main thread (the final pause, the steps
  // of incremental marking, the weak callbacks after a collection) is counted with full collections.
  const pauses = []
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR ? "scavenge" : "full"
      pauses.push([since(entry.startTime), since(entry.startTime + entry.duration), kind])
    }
  }).observe({ entryTypes: ["gc"] })

  const TICK_MS = 5
  const late = []
  let lastTick = performance.now()
  setInterval(() => {
    const now = performance.now()
    const by = now - lastTick - TICK_MS
    if (by >= 2) late.push([since(now), Math.round(by * 10) / 10])
    lastTick = now
  }, TICK_MS).unref()

  let requests = 0
  const slow = []
  const STARTED = Symbol("slow-requests.started")
  subscribe("http.server.request.start", ({ request }) => {
    requests++
    request[STARTED] = performance.now()
  })
  subscribe("http.server.response.finish", ({ request }) => {
    const start = request[STARTED]
    if (start === undefined) return
    const end = performance.now()
    if (end - start >= slowMs) slow.push([since(start), since(end)])
  })

  process.on("exit", () => {
    if (requests === 0 || process.uptime() < Number(process.env.PROBE_MIN_SECONDS ?? 2)) return
    writeFileSync(
      join(process.env.PROBE_DIR ?? ".", `slow-requests-${process.pid}.json`),
      JSON.stringify({ script: process.argv[1], requests, slowMs, slow, pauses, late })
    )
  })
}
