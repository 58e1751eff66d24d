// Summarises a V8 profile. A .cpuprofile goes through the bench's own summary (bench/lib/Profile.ts:
// self time, time by area, total time). A .heapprofile (bench/probes/allocations.mjs, or Chrome's)
// is read here: bytes by file and by allocating function, and with --under REGEX the bytes
// allocated inside every frame whose "function file:line" matches, by its callers (how issue 16
// found that 23 % of a GET's bytes come from one Context.merge), and with --nearest REGEX every
// byte charged to the nearest frame on its stack whose "function file:line" matches (with
// "packages/|apps/http/src": which of our own functions the allocations happen under, on a service
// run from its sources with --conditions=payments-gaming-source; a bundle hides the modules).
//
//   npm exec -- node bench/probes/summarize.ts FILE [--top N] [--under REGEX] [--nearest REGEX]
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { formatSummary, shortUrl, summarise } from "../lib/Profile.ts"

interface HeapNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly selfSize: number
  readonly children: ReadonlyArray<HeapNode>
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "30" }, under: { type: "string" }, nearest: { type: "string" } }
})
const [file] = positionals
if (file === undefined) {
  console.error(
    "usage: node bench/probes/summarize.ts FILE.cpuprofile|FILE.heapprofile [--top N] [--under REGEX] [--nearest REGEX]"
  )
  process.exit(2)
}
const top = Number(values.top)

if (file.endsWith(".cpuprofile")) {
  console.log(
    formatSummary(
      summarise(file, "the whole profile", { start: Number.NEGATIVE_INFINITY, end: Number.POSITIVE_INFINITY }, top)
    )
  )
  process.exit(0)
}

const head = (JSON.parse(readFileSync(file, "utf8")) as { readonly head: HeapNode }).head
const frameOf = ({ callFrame }: HeapNode) =>
  `${callFrame.functionName || "(anonymous)"} ${callFrame.url === "" ? "(native)" : `${shortUrl(callFrame.url)}:${callFrame.lineNumber + 1}`}`
const bytesUnder = (node: HeapNode): number =>
  node.children.reduce((sum, child) => sum + bytesUnder(child), node.selfSize)
const whole = bytesUnder(head)
const add = (map: Map<string, number>, key: string, bytes: number) => map.set(key, (map.get(key) ?? 0) + bytes)
const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`)
  for (const [key, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    const share = `${((100 * bytes) / whole).toFixed(1)} %`
    console.log(`${share.padStart(7)} ${`${(bytes / 1024).toFixed(0)} KiB`.padStart(11)}  ${key}`)
  }
}

const byFunction = new Map<string, number>()
const byFile = new Map<string, number>()
const walk = (node: HeapNode) => {
  if (node.selfSize > 0) {
    add(byFunction, frameOf(node), node.selfSize)
    add(byFile, node.callFrame.url === "" ? "(native)" : shortUrl(node.callFrame.url), node.selfSize)
  }
  node.children.forEach(walk)
}
walk(head)
console.log(`${file}: ${(whole / 1024).toFixed(0)} KiB allocated (sampled)`)
print("by file", byFile)
print("by allocating function", byFunction)

if (values.under !== undefined) {
  const pattern = new RegExp(values.under)
  const byCaller = new Map<string, number>()
  let inside = 0
  const search = (node: HeapNode, callers: ReadonlyArray<string>) => {
    const frame = frameOf(node)
    if (pattern.test(frame)) {
      const bytes = bytesUnder(node)
      inside += bytes
      add(byCaller, callers.slice(-3).reverse().join(" <- ") || "(root)", bytes)
      return
    }
    for (const child of node.children) search(child, [...callers, frame])
  }
  search(head, [])
  console.log(
    `\ninside /${values.under}/: ${(inside / 1024).toFixed(0)} KiB (${((100 * inside) / whole).toFixed(1)} %)`
  )
  print("by caller", byCaller)
}

if (values.nearest !== undefined) {
  const pattern = new RegExp(values.nearest)
  const byNearest = new Map<string, number>()
  const charge = (node: HeapNode, nearest: string) => {
    const frame = frameOf(node)
    const here = pattern.test(frame) ? frame : nearest
    if (node.selfSize > 0) add(byNearest, here, node.selfSize)
    for (const child of node.children) charge(child, here)
  }
  charge(head, "(no matching frame)")
  print(`by nearest frame matching /${values.nearest}/`, byNearest)
}
