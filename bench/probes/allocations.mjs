// Where a running server allocates: V8's sampling heap profiler from start to exit (issue 16).
// Load it like collector.mjs (NODE_OPTIONS=--import=/abs/path/bench/probes/allocations.mjs).
//
// By default the profile keeps every sampled allocation, collected or not, so it shows what a
// request allocates (`--heap-prof` keeps only what is still live at exit). PROBE_LIVE=1 keeps only
// the live ones. PROBE_PROMOTED=1 drops what a scavenge collected and keeps what a full collection did:
// the sites of what lived long enough to reach the old generation (issue 35). PROBE_FROM_SECONDS
// (default 0) starts sampling that long after the process started, so that start-up and a warm-up
// round (which fill caches once) do not hide what each request keeps. On exit, a process that ran
// at least PROBE_MIN_SECONDS (2) writes
// allocations-<pid>.heapprofile into PROBE_DIR (default: the working directory); open it in Chrome
// DevTools (Memory) or summarise it with `npm exec -- node bench/probes/summarize.ts FILE`.
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector"
import { join } from "node:path"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

const collected = process.env.PROBE_LIVE !== "1"
const promoted = process.env.PROBE_PROMOTED === "1"
const session = new Session()
session.connect()
session.post("HeapProfiler.enable")
const start = () =>
  session.post("HeapProfiler.startSampling", {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: collected,
    includeObjectsCollectedByMinorGC: collected && !promoted
  })
const from = Number(process.env.PROBE_FROM_SECONDS ?? 0)
if (from > 0) setTimeout(start, from * 1000).unref()
else start()

process.on("exit", () => {
  if (process.uptime() < Number(process.env.PROBE_MIN_SECONDS ?? 2)) return
  // With PROBE_PROMOTED, what is still in the young generation at exit has not met a scavenge yet:
  // two minor collections first collect its garbage and promote its survivors, so the profile holds
  // only what reached the old generation (or is about to), not the last few megabytes allocated.
  if (promoted) {
    setFlagsFromString("--expose-gc")
    const gc = runInNewContext("gc")
    gc({ type: "minor" })
    gc({ type: "minor" })
  }
  // The inspector answers a session on the main thread synchronously, so this runs before exit.
  session.post("HeapProfiler.getSamplingProfile", (error, result) => {
    if (error) return
    const file = join(process.env.PROBE_DIR ?? ".", `allocations-${process.pid}.heapprofile`)
    writeFileSync(file, JSON.stringify(result.profile))
  })
})
