// Where a running server allocates: V8's sampling heap profiler from start to exit (issue 16).
// Load it like collector.mjs (NODE_OPTIONS=--import=/abs/path/bench/probes/allocations.mjs).
//
// By default the profile keeps every sampled allocation, collected or not, so it shows what a
// request allocates (`--heap-prof` keeps only what is still live at exit). PROBE_LIVE=1 keeps only
// the live ones. PROBE_PROMOTED=1 drops what a scavenge collected and keeps what a full collection did:
// the sites of what lived long enough to reach the old generation (issue 35). On exit, a process that ran at least PROBE_MIN_SECONDS (2) writes
// allocations-<pid>.heapprofile into PROBE_DIR (default: the working directory); open it in Chrome
// DevTools (Memory) or summarise it with `npm exec -- node bench/probes/summarize.ts FILE`.
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector"
import { join } from "node:path"

const collected = process.env.PROBE_LIVE !== "1"
const promoted = process.env.PROBE_PROMOTED === "1"
const session = new Session()
session.connect()
session.post("HeapProfiler.enable")
session.post("HeapProfiler.startSampling", {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: collected,
  includeObjectsCollectedByMinorGC: collected && !promoted
})

process.on("exit", () => {
  if (process.uptime() < Number(process.env.PROBE_MIN_SECONDS ?? 2)) return
  // The inspector answers a session on the main thread synchronously, so this runs before exit.
  session.post("HeapProfiler.getSamplingProfile", (error, result) => {
    if (error) return
    const file = join(process.env.PROBE_DIR ?? ".", `allocations-${process.pid}.heapprofile`)
    writeFileSync(file, JSON.stringify(result.profile))
  })
})
