// Summarises a V8 profile: a .cpuprofile (self time per function and per file, busy time only) or a
// .heapprofile (bytes per allocating function and per file). With --under REGEX, also the bytes
// or time inside every frame whose "function file:line" matches, grouped by its callers, which is
// how issue 16 found that 23 % of a GET's bytes come from one Context.merge.
//
//   node bench/probes/summarize.mjs FILE [--top N] [--under REGEX]
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "30" }, under: { type: "string" } }
})
const [file] = positionals
if (file === undefined) {
  console.error("usage: node bench/probes/summarize.mjs FILE.cpuprofile|FILE.heapprofile [--top N] [--under REGEX]")
  process.exit(2)
}
const top = Number(values.top)
const profile = JSON.parse(readFileSync(file, "utf8"))
const isHeap = profile.head !== undefined

/** "function file:line", the file shortened to what follows node_modules/, dist/ or a bundle directory. */
const frameName = ({ callFrame }) =>
  `${callFrame.functionName || "(anonymous)"} ${callFrame.url.replace(/.*\/(node_modules|dist|bundle[^/]*)\//, "")}:${callFrame.lineNumber + 1}`

// Both formats as one tree of { frame, self, children }: self is bytes (heap) or microseconds (CPU).
let root
if (isHeap) {
  const convert = (node) => ({ frame: frameName(node), self: node.selfSize, children: node.children.map(convert) })
  root = convert(profile.head)
} else {
  const byId = new Map(profile.nodes.map((node) => [node.id, { frame: frameName(node), self: 0, children: [], node }]))
  for (const entry of byId.values()) entry.children = (entry.node.children ?? []).map((id) => byId.get(id))
  profile.samples.forEach((id, index) => {
    byId.get(id).self += profile.timeDeltas[index + 1] ?? 0
  })
  root = byId.get(profile.nodes[0].id)
  // Idle time is not the process's work.
  for (const entry of byId.values()) if (entry.frame.startsWith("(idle)")) entry.self = 0
}

const total = (node) => node.self + node.children.reduce((sum, child) => sum + total(child), 0)
const whole = total(root)
const unit = isHeap ? (n) => `${(n / 1024).toFixed(0)} KiB` : (n) => `${(n / 1000).toFixed(0)} ms`
const share = (n) => `${((100 * n) / whole).toFixed(1).padStart(5)} %`
const print = (title, map) => {
  console.log(`\n${title}`)
  for (const [key, n] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${share(n)} ${unit(n).padStart(11)}  ${key}`)
  }
}

const byFrame = new Map()
const byFile = new Map()
const walk = (node) => {
  if (node.self > 0) {
    byFrame.set(node.frame, (byFrame.get(node.frame) ?? 0) + node.self)
    // Frames without a file are V8's builtins and native code (GC, system calls): kept by name.
    const fileName = node.frame.includes(" :")
      ? node.frame
      : node.frame.slice(node.frame.indexOf(" ") + 1).replace(/:\d+$/, "")
    byFile.set(fileName, (byFile.get(fileName) ?? 0) + node.self)
  }
  node.children.forEach(walk)
}
walk(root)
console.log(`${file}: ${unit(whole)} ${isHeap ? "allocated (sampled)" : "busy"}`)
print("by file", byFile)
print(isHeap ? "by allocating function" : "by function (self time)", byFrame)

if (values.under !== undefined) {
  const pattern = new RegExp(values.under)
  const callers = new Map()
  let inside = 0
  const search = (node, stack) => {
    if (pattern.test(node.frame)) {
      const n = total(node)
      inside += n
      const key = stack.slice(-3).reverse().join(" <- ") || "(root)"
      callers.set(key, (callers.get(key) ?? 0) + n)
      return
    }
    for (const child of node.children) search(child, [...stack, node.frame])
  }
  search(root, [])
  console.log(`\ninside /${values.under}/: ${unit(inside)} (${share(inside).trim()})`)
  print("by caller", callers)
}
