import { readFileSync } from "node:fs"
import { ROOT } from "./Children.ts"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}

/** The parts of V8's .cpuprofile (written by `node --cpu-prof`) the summary reads. */
interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly startTime: number
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

export interface FunctionTime {
  readonly function: string
  readonly location: string
  readonly ms: number
  /** Share of the non-idle time of the window. */
  readonly percent: number
}

export interface ProfileSummary {
  readonly label: string
  readonly file: string
  /** Time covered by the samples in the window, and the part of it that was not idle. */
  readonly sampledMs: number
  readonly busyMs: number
  readonly selfTime: ReadonlyArray<FunctionTime>
  /** Time with the function anywhere on the stack (each function counted once per sample). */
  readonly totalTime: ReadonlyArray<FunctionTime>
  /** Self time summed by where the code lives: a package, Node's internals, GC, the app. */
  readonly byArea: ReadonlyArray<{ readonly area: string; readonly ms: number; readonly percent: number }>
}

const IDLE = "(idle)"
// Frames that are on every stack and say nothing about where the time goes.
const STRUCTURAL = new Set(["(root)", "(program)", "(idle)", "(garbage collector)"])

/** A source URL shortened to what follows node_modules/, or to its path inside the repository. */
export const shortUrl = (url: string) => {
  if (url === "") return ""
  const path = url.startsWith("file://") ? decodeURIComponent(url.slice("file://".length)) : url
  const nodeModules = path.lastIndexOf("/node_modules/")
  if (nodeModules >= 0) return path.slice(nodeModules + "/node_modules/".length)
  return path.startsWith(`${ROOT}/`) ? path.slice(ROOT.length + 1) : path
}

const areaOf = (name: string, url: string) => {
  if (name === "(garbage collector)") return "GC"
  if (name === "(program)") return "V8/native (program)"
  if (url === "") return "native/builtins"
  if (url.startsWith("node:")) return "node internals"
  const path = url.startsWith("file://") ? decodeURIComponent(url.slice("file://".length)) : url
  const nodeModules = path.lastIndexOf("/node_modules/")
  if (nodeModules >= 0) {
    const parts = path.slice(nodeModules + "/node_modules/".length).split("/")
    const pkg = parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] ?? "?")
    if (pkg !== "effect") return pkg
    // effect is one package but several worlds (the fiber runtime, Schema, http, sql): keep them apart.
    const inner = parts.slice(1).filter((part) => part !== "dist" && part !== "src" && part !== "internal")
    return `effect/${(inner[0] ?? "?").replace(/\.[jt]s$/, "")}`
  }
  const short = shortUrl(url)
  return /^(packages\/[^/]+|apps\/[^/]+)\//.exec(short)?.[1] ?? short
}

const top = (times: Map<string, { fn: string; location: string; ms: number }>, busyMs: number, count: number) =>
  [...times.values()]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count)
    .map((entry) => ({
      function: entry.fn,
      location: entry.location,
      ms: Math.round(entry.ms * 10) / 10,
      percent: Math.round((1000 * entry.ms) / busyMs) / 10
    }))

/**
 * Self and total time per function (name + file:line) of the samples taken between `window.start`
 * and `window.end` (µs on CLOCK_MONOTONIC, the profile's own clock), so start-up and shutdown stay
 * out of a load's picture.
 */
export const summarise = (
  file: string,
  label: string,
  window: { readonly start: number; readonly end: number },
  count = 25
): ProfileSummary => {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile
  const byId = new Map<number, ProfileNode>()
  const parent = new Map<number, number>()
  for (const node of profile.nodes) {
    byId.set(node.id, node)
    for (const child of node.children ?? []) parent.set(child, node.id)
  }
  const keyOf = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame
    const fn = functionName === "" ? "(anonymous)" : functionName
    const location = url === "" ? "" : `${shortUrl(url)}:${lineNumber + 1}`
    return { key: `${fn} ${location}`, fn, location }
  }

  const self = new Map<string, { fn: string; location: string; ms: number }>()
  const total = new Map<string, { fn: string; location: string; ms: number }>()
  const areas = new Map<string, number>()
  let sampledMs = 0
  let idleMs = 0
  let time = profile.startTime
  const { samples, timeDeltas } = profile
  for (let i = 0; i < samples.length; i++) {
    time += timeDeltas[i] ?? 0
    if (time < window.start || time > window.end) continue
    // A sample stands for the time until the next one.
    const ms = (timeDeltas[i + 1] ?? 0) / 1000
    const node = byId.get(samples[i] as number)
    if (node === undefined || ms <= 0) continue
    sampledMs += ms
    if (node.callFrame.functionName === IDLE) {
      idleMs += ms
      continue
    }
    const { key, fn, location } = keyOf(node)
    const entry = self.get(key) ?? { fn, location, ms: 0 }
    entry.ms += ms
    self.set(key, entry)
    const area = areaOf(node.callFrame.functionName, node.callFrame.url)
    areas.set(area, (areas.get(area) ?? 0) + ms)
    const seen = new Set<string>()
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id) as ProfileNode
      if (STRUCTURAL.has(frame.callFrame.functionName)) continue
      const framed = keyOf(frame)
      if (seen.has(framed.key)) continue
      seen.add(framed.key)
      const inclusive = total.get(framed.key) ?? { fn: framed.fn, location: framed.location, ms: 0 }
      inclusive.ms += ms
      total.set(framed.key, inclusive)
    }
  }
  const busyMs = Math.max(sampledMs - idleMs, 1e-9)
  return {
    label,
    file,
    sampledMs: Math.round(sampledMs),
    busyMs: Math.round(busyMs),
    selfTime: top(self, busyMs, count),
    totalTime: top(total, busyMs, count),
    byArea: [...areas.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([area, ms]) => ({ area, ms: Math.round(ms), percent: Math.round((1000 * ms) / busyMs) / 10 }))
  }
}

const pad = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width))

export const formatSummary = (summary: ProfileSummary) => {
  const lines = [
    `CPU profile: ${summary.label} (${summary.busyMs} ms busy of ${summary.sampledMs} ms sampled; ${summary.file})`,
    "  top self time:",
    ...summary.selfTime.map(
      (entry, i) =>
        `  ${String(i + 1).padStart(3)}. ${entry.ms.toFixed(0).padStart(6)} ms ${entry.percent.toFixed(1).padStart(5)}%  ${pad(entry.function, 40)} ${entry.location}`
    ),
    "  self time by area:",
    ...summary.byArea
      .slice(0, 15)
      .map(
        (entry) => `       ${String(entry.ms).padStart(6)} ms ${entry.percent.toFixed(1).padStart(5)}%  ${entry.area}`
      ),
    "  top total time (function anywhere on the stack):",
    ...summary.totalTime.map(
      (entry, i) =>
        `  ${String(i + 1).padStart(3)}. ${entry.ms.toFixed(0).padStart(6)} ms ${entry.percent.toFixed(1).padStart(5)}%  ${pad(entry.function, 40)} ${entry.location}`
    )
  ]
  return lines.join("\n")
}

/**
 * CPU per request by area, service against plain reference under the same scenario: where the
 * service's extra CPU goes. Each area's share of the profile's non-idle samples is applied to the
 * process's CPU time per request (from /proc): the sampler also counts time a runnable process
 * waits for a CPU, so on a busy machine the profile's own milliseconds run high, its shares do not.
 * Areas sorted by the difference, largest first.
 */
export const formatAreaComparison = (
  label: string,
  service: { readonly summary: ProfileSummary; readonly cpuMsPerRequest: number },
  plain: { readonly summary: ProfileSummary; readonly cpuMsPerRequest: number },
  count = 14
) => {
  const perRequest = (entry: { readonly summary: ProfileSummary; readonly cpuMsPerRequest: number }) =>
    new Map(
      entry.summary.byArea.map((area) => [
        area.area,
        (area.ms / Math.max(1, entry.summary.busyMs)) * entry.cpuMsPerRequest
      ])
    )
  const ours = perRequest(service)
  const theirs = perRequest(plain)
  const areas = [...new Set([...ours.keys(), ...theirs.keys()])]
    .map((area) => ({ area, service: ours.get(area) ?? 0, plain: theirs.get(area) ?? 0 }))
    .sort((a, b) => b.service - b.plain - (a.service - a.plain))
  const ms = (value: number) => value.toFixed(3).padStart(8)
  return [
    `CPU ms per request by area, service vs plain: ${label}`,
    `  ${"area".padEnd(28)} ${"service".padStart(8)} ${"plain".padStart(8)} ${"extra".padStart(8)}`,
    `  ${"(all)".padEnd(28)} ${ms(service.cpuMsPerRequest)} ${ms(plain.cpuMsPerRequest)} ${ms(service.cpuMsPerRequest - plain.cpuMsPerRequest)}`,
    ...areas
      .slice(0, count)
      .map(
        (entry) =>
          `  ${entry.area.padEnd(28)} ${ms(entry.service)} ${ms(entry.plain)} ${ms(entry.service - entry.plain)}`
      )
  ].join("\n")
}
