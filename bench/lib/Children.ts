import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { request } from "node:http"
import { type AddressInfo, createServer } from "node:net"
import { join } from "node:path"

export const ROOT = join(import.meta.dirname, "..", "..")
/** The pinned Node 24 (a real binary, so the child's pid is the server's own). */
export const NODE = join(ROOT, "node_modules", ".bin", "node")

const OUTPUT_KEPT = 64 * 1024

export interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export interface Child {
  readonly name: string
  readonly pid: number
  /** The last 64 KiB of stdout and stderr, for error messages. */
  readonly output: () => string
  readonly exited: Promise<Exit>
  readonly isRunning: () => boolean
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  readonly stop: (graceMs?: number) => Promise<Exit>
}

// Every child ever started and not yet reaped: what the exit and signal handlers kill.
const live = new Set<ChildProcess>()

/** Kills every child still running, synchronously (safe inside an `exit` handler). */
export const killAll = () => {
  for (const child of live) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
}

/**
 * `node --conditions=payments-gaming-source [...nodeArgs] script` in the repository root with
 * exactly `env` (plus PATH and HOME): nothing of the caller's environment, a stray DATABASE_URL
 * say, reaches the process under test.
 */
export const spawnNode = (
  name: string,
  script: string,
  env: Record<string, string>,
  nodeArgs: ReadonlyArray<string> = [],
  /** Another project's folder (the peer); its script then runs as that project runs it. */
  cwd: string = ROOT
): Child => {
  const conditions = cwd === ROOT ? ["--conditions=payments-gaming-source"] : []
  const child = spawn(NODE, [...conditions, ...nodeArgs, script], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  live.add(child)
  let output = ""
  const keep = (chunk: string) => {
    output = (output + chunk).slice(-OUTPUT_KEPT)
  }
  child.stdout?.setEncoding("utf8").on("data", keep)
  child.stderr?.setEncoding("utf8").on("data", keep)
  const exited = new Promise<Exit>((resolve) => {
    child.once("close", (code, signal) => {
      live.delete(child)
      resolve({ code, signal })
    })
    child.once("error", (error) => {
      keep(`\n[spawn error] ${error.message}\n`)
      live.delete(child)
      resolve({ code: null, signal: null })
    })
  })
  const isRunning = () => child.exitCode === null && child.signalCode === null && live.has(child)
  const stop = async (graceMs = 25_000) => {
    if (!isRunning()) return exited
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
    const exit = await exited
    clearTimeout(timer)
    return exit
  }
  return { name, pid: child.pid ?? -1, output: () => output, exited, isRunning, stop }
}

/** A port free right now on 127.0.0.1 (the kernel's choice, released at once). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })

/** The status of one GET on a fresh connection, or 0 when nothing answered. */
export const statusOf = (port: number, path: string) =>
  new Promise<number>((resolve) => {
    const outgoing = request({ host: "127.0.0.1", port, path, agent: false, timeout: 2_000 }, (response) => {
      response.resume()
      response.on("end", () => resolve(response.statusCode ?? 0))
      response.on("error", () => resolve(0))
    })
    outgoing.on("timeout", () => outgoing.destroy())
    outgoing.on("error", () => resolve(0))
    outgoing.end()
  })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Polls `path` every 20 ms until it answers 200 and returns the milliseconds since `spawnedAt`.
 * Fails with the child's output when it exits first or after `timeoutMs`.
 */
export const waitReady = async (child: Child, port: number, path: string, spawnedAt: bigint, timeoutMs = 90_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (!child.isRunning()) {
      const exit = await child.exited
      throw new Error(`${child.name} exited ${JSON.stringify(exit)} before ${path} answered 200:\n${child.output()}`)
    }
    if ((await statusOf(port, path)) === 200) return Number(process.hrtime.bigint() - spawnedAt) / 1e6
    await sleep(20)
  }
  throw new Error(`${child.name} did not answer 200 on ${path} within ${timeoutMs} ms:\n${child.output()}`)
}

/** A field of /proc/<pid>/status in MiB (VmRSS: now; VmHWM: the peak so far), or undefined once gone. */
export const memoryMb = (pid: number, field: "VmRSS" | "VmHWM"): number | undefined => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8")
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)
    return match === null ? undefined : Number(match[1]) / 1024
  } catch {
    return undefined
  }
}

/** Samples VmRSS of `pid` every 100 ms until `stop`, which returns the highest value seen (MiB). */
export const sampleRss = (pid: number) => {
  let peak = memoryMb(pid, "VmRSS") ?? 0
  const timer = setInterval(() => {
    peak = Math.max(peak, memoryMb(pid, "VmRSS") ?? 0)
  }, 100)
  return {
    stop: () => {
      clearInterval(timer)
      return Math.max(peak, memoryMb(pid, "VmRSS") ?? 0)
    }
  }
}

// Clock ticks per second of /proc/<pid>/stat's CPU times (100 on every common Linux).
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
})()

/** User + system CPU time the process has used so far, in ms (10 ms resolution), or undefined once gone. */
export const cpuMs = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after the command name, which is in parentheses and may hold spaces: utime is the 14th
    // field of the line, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
  } catch {
    return undefined
  }
}

/**
 * CPU time every PostgreSQL process on this machine has used so far, in ms (the server and its
 * backends; a backend that exits between two readings takes its time with it). With a database
 * otherwise idle, the difference of two readings is what a piece of work cost PostgreSQL.
 */
export const postgresCpuMs = (): number => {
  let total = 0
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres") continue
    } catch {
      continue
    }
    total += cpuMs(Number(entry)) ?? 0
  }
  return total
}
