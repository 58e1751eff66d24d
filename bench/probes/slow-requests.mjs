// What a server's slowest requests overlapped (issue 35: attribute the tail). Every request held at
// least PROBE_SLOW_MS (default 10) from Node's 'request' event to the response's 'finish' is kept
// with its start and end, beside every pause of the collector (scavenges and full collections, on
// the main thread) and every tick of a 5 ms timer that fired 2 ms or more late. A tail whose slow
// requests sat through a pause is the collector's; one whose slow requests saw none waited on
// something else (the database, the other core). Load it like collector.mjs
// (NODE_OPTIONS=--import=/abs/path/bench/probes/slow-requests.mjs).
//
// On exit, a process that ran at least PROBE_MIN_SECONDS (2) writes slow-requests-<pid>.json into
// PROBE_DIR (default: the working directory). Summarise it with
//   node bench/probes/slow-requests.mjs FILE [FROM_SECONDS [TO_SECONDS]]
// which counts the slow requests in the window by what they overlapped (a full collection, only
// scavenges, nothing), with their mean time held, the pauses inside them and the longest lateness
// of the timer while they were held; and how many started within NEAR_MS (300) of a full
// collection's pause, against the share of the window those stretches cover: V8 marks and sweeps
// concurrently around the pause, on the other cores, so a request can be slowed by a full
// collection it never sat through.
//
// The start time rides on the request object under a symbol, not in a WeakMap: V8's scavenger keeps
// a WeakMap's young keys alive (docs/benchmarks.md, "Sixteenth session"), which would change what
// the probe measures.
import { subscribe } from "node:diagnostics_channel"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { constants, PerformanceObserver } from "node:perf_hooks"
import { fileURLToPath } from "node:url"

const overlap = (from, to, start, end) => Math.max(0, Math.min(to, end) - Math.max(from, start))
const NEAR_MS = 300

const summarise = (file, fromSeconds, toSeconds) => {
  const { script, requests, slowMs, slow, pauses, late } = JSON.parse(readFileSync(file, "utf8"))
  const kinds = { full: [], scavenge: [], none: [] }
  for (const [start, end] of slow) {
    if (start / 1000 < fromSeconds || start / 1000 >= toSeconds) continue
    let scavenge = 0
    let full = 0
    for (const [from, to, major] of pauses) {
      const inside = overlap(from, to, start, end)
      if (major) full += inside
      else scavenge += inside
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
  const counted = kinds.full.length + kinds.scavenge.length + kinds.none.length
  // Near a full collection: starting within NEAR_MS of one of its pauses, before or after.
  const fulls = pauses.filter(([, , major]) => major).map(([from, to]) => [from - NEAR_MS, to + NEAR_MS])
  const inWindow = slow.filter(([start]) => start / 1000 >= fromSeconds && start / 1000 < toSeconds)
  const near = inWindow.filter(([start]) => fulls.some(([from, to]) => start >= from && start <= to)).length
  const first = Math.max(fromSeconds * 1000, inWindow[0]?.[0] ?? 0)
  const last = Math.min(toSeconds * 1000, inWindow.at(-1)?.[1] ?? 0)
  const covered = fulls.reduce((sum, [from, to]) => sum + overlap(from, to, first, last), 0)
  console.log(
    `${script}: ${requests} requests in all; ${counted} held ${slowMs} ms or more in [${fromSeconds}, ${toSeconds}) s`
  )
  for (const [kind, list] of Object.entries(kinds)) {
    console.log(
      `  ${kind.padEnd(8)} ${String(list.length).padStart(6)}  mean held ${mean(list, "held").toFixed(1)} ms,` +
        ` pauses inside ${mean(list, "paused").toFixed(1)} ms, longest loop delay ${mean(list, "delay").toFixed(1)} ms`
    )
  }
  const share = (part, whole) => (whole > 0 ? `${Math.round((100 * part) / whole)} %` : "-")
  console.log(
    `  within ${NEAR_MS} ms of a full collection: ${near} slow requests (${share(near, counted)}),` +
      ` in ${share(covered, last - first)} of the time from the first slow request to the last`
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, from, to] = process.argv.slice(2)
  if (file === undefined) {
    console.error("usage: node bench/probes/slow-requests.mjs FILE [FROM_SECONDS [TO_SECONDS]]")
    process.exit(2)
  }
  summarise(file, Number(from ?? 0), to === undefined ? Number.POSITIVE_INFINITY : Number(to))
} else {
  const slowMs = Number(process.env.PROBE_SLOW_MS ?? 10)
  const origin = performance.now()
  const since = (time) => Math.round((time - origin) * 10) / 10
  const pauses = []
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const major = entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR
      pauses.push([since(entry.startTime), since(entry.startTime + entry.duration), major])
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
    if (process.uptime() < Number(process.env.PROBE_MIN_SECONDS ?? 2)) return
    writeFileSync(
      join(process.env.PROBE_DIR ?? ".", `slow-requests-${process.pid}.json`),
      JSON.stringify({ script: process.argv[1], requests, slowMs, slow, pauses, late })
    )
  })
}
