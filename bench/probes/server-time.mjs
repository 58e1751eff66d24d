// Where a request's time goes, seen from inside a server, for comparing with what the load
// generator sees (issue 16: is the tail inside the request or in front of it?). Load it like
// collector.mjs (NODE_OPTIONS=--import=/abs/path/bench/probes/server-time.mjs).
//
// - held: from Node's 'request' event (headers parsed) to the response's 'finish' (handed to the
//   kernel), per request.
// - between: on a kept-alive connection, from one response's 'finish' to the next request's
//   'request' event. The load generator sends its next request as soon as it has read an answer,
//   so this is the trip back and forth plus however long the server takes to read the next one.
//
// On exit, a process that ran at least PROBE_MIN_SECONDS (2) writes server-time-<pid>.json into
// PROBE_DIR (default: the working directory): the count and percentiles of both, and of the event
// loop's delay, in milliseconds. Plain JavaScript, so it loads before anything else.
import { subscribe } from "node:diagnostics_channel"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { createHistogram, monitorEventLoopDelay } from "node:perf_hooks"

const held = createHistogram()
const between = createHistogram()
const delay = monitorEventLoopDelay({ resolution: 5 })
delay.enable()
// On the request and the socket under symbols rather than in WeakMaps: the probe keeps no weak
// table of its own for the collector to process (slow-requests.mjs says why, and what the symbols
// cost instead).
const STARTED = Symbol("server-time.started")
const FINISHED = Symbol("server-time.finished")
subscribe("http.server.request.start", ({ request, socket }) => {
  const now = process.hrtime.bigint()
  request[STARTED] = now
  const finished = socket[FINISHED]
  if (finished !== undefined) between.record(Number(now - finished) || 1)
})
subscribe("http.server.response.finish", ({ request, socket }) => {
  const now = process.hrtime.bigint()
  const started = request[STARTED]
  if (started !== undefined) held.record(Number(now - started) || 1)
  socket[FINISHED] = now
})

const millis = (histogram) => ({
  count: histogram.count,
  p50: histogram.percentile(50) / 1e6,
  p90: histogram.percentile(90) / 1e6,
  p99: histogram.percentile(99) / 1e6,
  p999: histogram.percentile(99.9) / 1e6,
  max: histogram.max / 1e6
})

process.on("exit", () => {
  if (process.uptime() < Number(process.env.PROBE_MIN_SECONDS ?? 2)) return
  const file = join(process.env.PROBE_DIR ?? ".", `server-time-${process.pid}.json`)
  writeFileSync(
    file,
    JSON.stringify(
      { script: process.argv[1], held: millis(held), between: millis(between), loopDelay: millis(delay) },
      null,
      2
    )
  )
})
