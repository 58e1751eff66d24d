// Which threads of a running server spend its CPU (issue 35): the JavaScript thread against V8's
// worker threads (concurrent marking, parallel scavenging, sweeping and background compilation,
// which a thread's name cannot tell apart) and libuv's pool, per request served. The harness's CPU
// column counts the whole process group; this splits one process's CPU by thread, so two servers'
// background work can be compared by what it costs and not only by their pauses. Threads that ended
// before exit are not counted. Load it
// like collector.mjs (NODE_OPTIONS=--import=/abs/path/bench/probes/threads.mjs). Linux only: it
// reads /proc/self/task.
//
// On exit, a process that ran at least PROBE_MIN_SECONDS (2) writes threads-<pid>.json into
// PROBE_DIR (default: the working directory): the requests it served (Node's `request` event, set-up
// and warm-up included), and per thread name (digits stripped, so V8's workers add up under one name)
// the CPU milliseconds since the process started, in all and per request. Start-up counts too, so
// compare processes that served the same load for the same time. Plain JavaScript, so it loads
// before anything else.
import { subscribe } from "node:diagnostics_channel"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

let requests = 0
subscribe("http.server.request.start", () => {
  requests++
})

// utime + stime of one thread, in clock ticks (USER_HZ, 100 on Linux): fields 14 and 15 of its stat
// line, counted after the name, which is in parentheses and may itself hold spaces.
const TICK_MS = 10
const threadCpu = () => {
  const byName = {}
  for (const id of readdirSync("/proc/self/task")) {
    let line
    try {
      line = readFileSync(`/proc/self/task/${id}/stat`, "utf8")
    } catch {
      continue // the thread ended between the listing and the read
    }
    const name = line.slice(line.indexOf("(") + 1, line.lastIndexOf(")")).replace(/\d+$/, "")
    const fields = line.slice(line.lastIndexOf(")") + 2).split(" ")
    byName[name] = (byName[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_MS
  }
  return byName
}

process.on("exit", () => {
  if (process.uptime() < Number(process.env.PROBE_MIN_SECONDS ?? 2)) return
  const cpuMs = threadCpu()
  const perRequestMs = Object.fromEntries(
    Object.entries(cpuMs).map(([name, ms]) => [name, requests === 0 ? null : Math.round((1000 * ms) / requests) / 1000])
  )
  const report = { script: process.argv[1], uptimeSeconds: Math.round(process.uptime()), requests, cpuMs, perRequestMs }
  writeFileSync(
    join(process.env.PROBE_DIR ?? ".", `threads-${process.pid}.json`),
    `${JSON.stringify(report, null, 2)}\n`
  )
})
