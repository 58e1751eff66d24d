// Where a running server spends its CPU: V8's sampling CPU profiler from start to exit, for the
// servers the shared harness starts (`--cpu-prof` is refused in NODE_OPTIONS, an --import is not).
// Load it like collector.mjs (NODE_OPTIONS=--import=/abs/path/bench/probes/cpu.mjs). On exit, a
// process that ran at least PROBE_MIN_SECONDS (2) writes cpu-<pid>.cpuprofile into PROBE_DIR
// (default: the working directory), sampled every PROBE_INTERVAL_US microseconds (200); summarise
// it with `npm exec -- node bench/probes/summarize.ts FILE`.
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector"
import { join } from "node:path"

const session = new Session()
session.connect()
session.post("Profiler.enable")
session.post("Profiler.setSamplingInterval", { interval: Number(process.env.PROBE_INTERVAL_US ?? 200) })
session.post("Profiler.start")

process.on("exit", () => {
  if (process.uptime() < Number(process.env.PROBE_MIN_SECONDS ?? 2)) return
  // The inspector answers a session on the main thread synchronously, so this runs before exit.
  session.post("Profiler.stop", (error, result) => {
    if (error) return
    const file = join(process.env.PROBE_DIR ?? ".", `cpu-${process.pid}.cpuprofile`)
    writeFileSync(file, JSON.stringify(result.profile))
  })
})
