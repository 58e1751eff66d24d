// Why a generator function made per request keeps the request alive past the young collections
// (issue 35, docs/benchmarks.md "Seventeenth session"). Each way below runs 100,000 "requests" that
// each allocate about 4 KB, keep it while the request runs, and drop it when it ends; only how the
// request's steps are written changes. It prints, for each, what the scavenges promoted to the old
// generation and how many full collections followed:
//
//   node bench/probes/generator-closures.mjs        (the pinned Node 24: npm exec -- node …)
//
// Measured on Node 24.21 (V8 13.6): the per-request generator promotes about 200 MB, all of it; the
// same generator made once and given the request's values as arguments, 2-3 MB, as plain closures
// do. V8 gives every generator function object the first time it runs a map of its own (the shape
// of the generator objects it makes) in the old generation, and that map points back at the
// function and so at the variables it closed over. A young collection treats every old object as
// alive, so the request's objects survive each one until a full collection finds the map dead. A
// function called with `new` is the same. In Effect, `Effect.gen(function* () { … })` written inside
// a function that runs per request is such a generator; `Effect.fnUntraced(function* (…) { … })`
// made once is not.
import { fork } from "node:child_process"
import { GCProfiler } from "node:v8"

const REQUESTS = 100_000

const ways = {
  "generator made once, values as arguments": (request) => {
    for (const step of made(request)) request.sink += step
  },
  "generator made per request": (request) => {
    const perRequest = function* () {
      yield request.graph.length
    }
    for (const step of perRequest()) request.sink += step
  },
  "arrow function made per request": (request) => {
    const perRequest = () => request.graph.length
    request.sink += perRequest()
  },
  "constructor made per request, called with new": (request) => {
    const PerRequest = function () {
      this.length = request.graph.length
    }
    request.sink += new PerRequest().length
  }
}

function* made(request) {
  yield request.graph.length
}

const oldBytes = (spaces) =>
  spaces.reduce(
    (sum, space) =>
      space.spaceName === "old_space" || space.spaceName === "large_object_space" ? sum + space.spaceUsedSize : sum,
    0
  )

const run = async (name) => {
  const way = ways[name]
  const profiler = new GCProfiler()
  profiler.start()
  let sink = 0
  for (let index = 0; index < REQUESTS; index++) {
    const request = { graph: Array.from({ length: 40 }, (_, at) => ({ at, text: `item ${at} of ${index}` })), sink: 0 }
    way(request)
    sink += request.sink
    // Let the event loop turn now and then, as a server's would.
    if (index % 100 === 0) await new Promise((resolve) => setImmediate(resolve))
  }
  let promoted = 0
  let full = 0
  for (const gc of profiler.stop().statistics) {
    if (gc.gcType === "Scavenge") {
      promoted += Math.max(0, oldBytes(gc.afterGC.heapSpaceStatistics) - oldBytes(gc.beforeGC.heapSpaceStatistics))
    } else if (gc.gcType === "MarkSweepCompact") full++
  }
  return { promotedMB: Math.round(promoted / 1e5) / 10, fullCollections: full, sink }
}

if (process.argv[2] === "--child") {
  process.send(await run(process.argv[3]))
} else {
  // One process per way, so that what one way promoted does not count against the next.
  for (const name of Object.keys(ways)) {
    const child = fork(new URL(import.meta.url).pathname, ["--child", name])
    const result = await new Promise((resolve, reject) => {
      child.once("message", resolve)
      child.once("error", reject)
    })
    child.kill()
    console.log(
      `${name.padEnd(48)} promoted ${String(result.promotedMB).padStart(6)} MB, ${result.fullCollections} full collections`
    )
  }
}
