/**
 * `npm run bench`: the benchmark of issues 8 and 16. Starts the service against PostgreSQL, a plain
 * node:http server doing the same SQL, the Fastify + pg peer of ../shared/peers/fastify-pg (on its
 * own database; skipped with a message when it is missing) and a static JSON server
 * (bench/reference-server.ts), drives each with autocannon at 1, 16 and 64 connections, and reports
 * req/s, p50, p99, errors and peak RSS, the ratios service ÷ plain and service ÷ peer, cold starts,
 * the embedded database and a CPU profile. Writes bench/results.json. See docs/benchmarks.md.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import os from "node:os"
import { join } from "node:path"
import { killAll, memoryMb, ROOT } from "./lib/Children.ts"
import {
  createDatabase,
  DEFAULT_ADMIN_URL,
  dropDatabase,
  serverVersion,
  storeReturningPlayers
} from "./lib/Database.ts"
import { makeDbWaitSampler } from "./lib/DbWaits.ts"
import { type Row, runLoad, stopCurrentLoad, type Target } from "./lib/Load.ts"
import { parseOptions } from "./lib/Options.ts"
import { formatAreaComparison, formatSummary, summarise } from "./lib/Profile.ts"
import { checks, formatChecks, formatRatios, formatRows, ratios } from "./lib/Report.ts"
import { makeScenarios, type Scenario } from "./lib/Scenarios.ts"
import { mintToken } from "./lib/Secrets.ts"
import { bundleService, peerMissing, type Started, startPeer, startReference, startService } from "./lib/Targets.ts"

const RESULTS = join(ROOT, "bench", "results.json")
const PROFILES = join(ROOT, "bench", "profiles")
// A static target answers far faster than anything behind a database; its token pool is capped
// and the rest minted in the run (reported per row), which costs it a few percent at most.
const MAX_TOKEN_POOL = 60_000

const options = parseOptions(process.argv.slice(2), process.env)
const runId = `${Date.now().toString(36)}${process.pid.toString(36)}`
const log = (line: string) => console.log(line)

// --- clean-up: every child killed, every database and directory we created removed -------------

const created: { adminUrl?: string; database?: string; peerDatabase?: string; dirs: Array<string> } = { dirs: [] }
let cleaning: Promise<void> | undefined
const cleanUp = () => {
  cleaning ??= (async () => {
    stopCurrentLoad()
    killAll()
    await sampler?.dispose().catch(() => undefined)
    if (created.adminUrl !== undefined) {
      for (const database of [created.database, created.peerDatabase]) {
        if (database !== undefined && (await dropDatabase(created.adminUrl, database)))
          log(`dropped database ${database}`)
      }
    }
    for (const dir of created.dirs) rmSync(dir, { recursive: true, force: true })
  })()
  return cleaning
}
process.on("exit", killAll)
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143]
] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the children and dropping the bench database`)
    void cleanUp().finally(() => process.exit(code))
  })
}

const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(os.tmpdir(), prefix))
  created.dirs.push(dir)
  return dir
}

// --- steps -------------------------------------------------------------------------------------

/** One request of `scenario` against `target`, outside any timing: the scenario must answer 2xx. */
const probe = async (scenario: Scenario, target: Target) => {
  const plan = await scenario.plan(`probe-${runId}-${target.id}`, 1)
  const step = plan.requests[0]!
  const request = step.setupRequest!({ method: step.method ?? "GET", path: step.path ?? "/", headers: {} }, {})
  const response = await fetch(`http://127.0.0.1:${target.port}${request.path}`, {
    method: request.method ?? "GET",
    headers: request.headers ?? {},
    ...(request.body === undefined ? {} : { body: request.body })
  })
  const text = await response.text()
  if (response.status < 200 || response.status >= 300) {
    throw new Error(`${scenario.title} on ${target.id} answered ${response.status}: ${text.slice(0, 500)}`)
  }
}

const linkVirtualAccount = async (service: Target, accountNumber: string) => {
  const token = await mintToken(`bench-admin-${runId}`, ["admin"])
  const response = await fetch(`http://127.0.0.1:${service.port}/v1/admin/virtual-accounts/${accountNumber}`, {
    method: "PUT",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    // One depositor per account: each credit takes its own wallet's lock.
    body: JSON.stringify({ userId: `bench-depositor-${runId}-${accountNumber}`, currency: "NGN" })
  })
  if (response.status !== 201) {
    throw new Error(`linking virtual account ${accountNumber} answered ${response.status}: ${await response.text()}`)
  }
}

const describeRow = (row: Row) =>
  `  ${row.scenario.padEnd(10)} ${row.target.padEnd(14)} c=${String(row.connections).padEnd(3)} ` +
  `${row.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${row.latencyMs.p50} ms  p99 ${row.latencyMs.p99} ms` +
  (row.errors + row.non2xx > 0 ? `  errors ${row.errors} non-2xx ${row.non2xx}` : "")

/** Rates seen in each scenario's warm-up, per target: they size the token pools of the real runs. */
const warmRates = new Map<string, number>()
let loadCounter = 0

// Samples pg_stat_activity during the runs on PostgreSQL; set once the bench database exists.
let sampler: ReturnType<typeof makeDbWaitSampler> | undefined

// Server errors seen during runs, with what the process said at the time (its warn/error log).
const serverErrors: Array<{ scenario: string; target: string; connections: number; output: string }> = []

const measure = async (scenario: Scenario, target: Started, connections: number, seconds: number) => {
  const rate = warmRates.get(`${scenario.id}/${target.id}`) ?? 2_000
  const expectedRequests = Math.min(MAX_TOKEN_POOL, Math.ceil(rate * 1.5 * seconds) + 500)
  const tag = `${runId}-${target.id}-${connections}-${loadCounter++}`
  const row = await runLoad(scenario, target, connections, seconds, { tag, expectedRequests, sampler })
  const failed = Object.entries(row.statusCodes).filter(([code]) => code.startsWith("5"))
  if (failed.length > 0) {
    const output = target.child.output().slice(-4_000)
    serverErrors.push({ scenario: scenario.id, target: target.id, connections, output })
    log(
      `  ${target.id} answered ${failed.map(([code, count]) => `${code}×${count}`).join(" ")}; its output:\n${output}`
    )
  }
  return row
}

const warmUp = async (scenario: Scenario, target: Started) => {
  const row = await measure(scenario, target, 16, options.warmupSeconds)
  warmRates.set(`${scenario.id}/${target.id}`, row.requestsPerSecond)
}

/** Stops a target and gives its peak RSS over its whole life (VmHWM, read just before). */
const stopTarget = async (target: Started) => {
  const peak = memoryMb(target.pid, "VmHWM") ?? 0
  const exit = await target.child.stop()
  if (exit.code !== 0) log(`  (${target.id} exited ${JSON.stringify(exit)})`)
  return peak
}

/** The newest profile written by `pid` (Node names them CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile). */
const profileOf = (pid: number) => {
  const files = readdirSync(PROFILES)
    .filter((name) => name.endsWith(".cpuprofile") && name.includes(`.${pid}.`))
    .map((name) => join(PROFILES, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
  return files[0]
}

/** The scenarios of `all` that `--scenario` kept (every one by default), in their usual order. */
const selected = <S extends Scenario>(all: ReadonlyArray<S>) =>
  all.filter((scenario) => options.scenarios.includes(scenario.id))

// --- the run -----------------------------------------------------------------------------------

interface ColdStart {
  readonly database: string
  readonly state: string
  readonly ms: number
}

/**
 * The Fastify + pg peer on a database of its own (its schema is not ours), or `undefined` with a
 * line saying why it is left out (no ../shared/peers/fastify-pg, or its `npm ci` not run).
 */
const startPeerTarget = async (): Promise<Started | undefined> => {
  const missing = peerMissing()
  if (missing !== undefined) {
    log(`peer skipped: ${missing}`)
    return undefined
  }
  const adminUrl = process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL
  const name = `bench_peer_${runId}`
  const url = await createDatabase(adminUrl, name)
  created.adminUrl ??= adminUrl
  created.peerDatabase = name
  const peer = await startPeer(url)
  log(`peer (Fastify + pg, ${peer.readyMs.toFixed(0)} ms to ready) on database ${name}`)
  return peer
}

/** Every scenario at every connection count against the service, the plain server, the peer and the static one. */
const runMatrix = async (
  databaseUrl: string,
  scenarios: ReturnType<typeof makeScenarios>,
  accountNumbers: ReadonlyArray<string>,
  service: Started
) => {
  const plain = await startReference("plain", databaseUrl)
  const ceiling = await startReference("static", databaseUrl)
  const peer = await startPeerTarget()
  const targets = [service, plain, ...(peer === undefined ? [] : [peer]), ceiling]
  const rssAtReady: Record<string, number> = {
    plain: memoryMb(plain.pid, "VmRSS") ?? 0,
    static: memoryMb(ceiling.pid, "VmRSS") ?? 0,
    ...(peer === undefined ? {} : { peer: memoryMb(peer.pid, "VmRSS") ?? 0 })
  }
  for (const accountNumber of accountNumbers) {
    await linkVirtualAccount(service, accountNumber)
    if (peer !== undefined) await linkVirtualAccount(peer, accountNumber)
  }
  for (const scenario of selected(scenarios.all)) for (const target of targets) await probe(scenario, target)
  log("every scenario answers 2xx on every target\n")

  const rows: Array<Row> = []
  for (const scenario of selected(scenarios.all)) {
    log(scenario.title)
    for (const target of targets) await warmUp(scenario, target)
    for (const connections of options.connections) {
      for (const target of targets) {
        const row = await measure(scenario, target, connections, options.durationSeconds)
        rows.push(row)
        log(describeRow(row))
      }
    }
  }
  const peakRss: Record<string, number> = { plain: await stopTarget(plain), static: await stopTarget(ceiling) }
  if (peer !== undefined) peakRss.peer = await stopTarget(peer)
  return { rows, peakRss, rssAtReady }
}

/**
 * The service and the plain reference under --cpu-prof, one after the other through the same
 * scenarios at 64 connections; the summaries cover the load windows only, and the plain profile
 * shows where the service's extra CPU per request goes.
 */
const runProfile = async (databaseUrl: string, scenarios: ReturnType<typeof makeScenarios>) => {
  mkdirSync(PROFILES, { recursive: true })
  log("\nprofiling the service and the plain reference (--cpu-prof) at 64 connections")
  const profile = ["--cpu-prof", `--cpu-prof-dir=${PROFILES}`]
  const service = await startService({
    id: "service",
    databaseUrl,
    dataDir: tempDir("bench-service-"),
    nodeArgs: profile
  })
  const plain = await startReference("plain", databaseUrl, profile)
  const runs: Array<{
    scenario: string
    target: Started
    window: { start: number; end: number }
    requests: number
    cpuMsPerRequest: number
  }> = []
  for (const scenario of selected([
    scenarios.webhook,
    scenarios.cards,
    scenarios.spin,
    scenarios.spinReturning,
    scenarios.wheelView
  ])) {
    for (const target of [service, plain]) {
      await warmUp(scenario, target)
      const row = await measure(scenario, target, 64, options.durationSeconds)
      log(`${describeRow(row)}  (profiled)`)
      runs.push({
        scenario: scenario.title,
        target,
        window: row.windowUs,
        requests: row.requestsTotal,
        cpuMsPerRequest: row.cpuMsPerRequest
      })
    }
  }
  // A profile is written when its process exits, which SIGTERM makes both do cleanly.
  await stopTarget(service)
  await stopTarget(plain)
  const files = new Map<Started, string>()
  for (const target of [service, plain]) {
    const file = profileOf(target.pid)
    if (file === undefined) throw new Error(`the profiled ${target.id} wrote no .cpuprofile into ${PROFILES}`)
    files.set(target, file)
  }
  const summaries = runs.map((run) => ({
    scenario: run.scenario,
    target: run.target.id,
    requests: run.requests,
    cpuMsPerRequest: run.cpuMsPerRequest,
    windowUs: run.window,
    summary: summarise(files.get(run.target) as string, `${run.target.id}: ${run.scenario}, 64 connections`, run.window)
  }))
  const comparisons: Array<string> = []
  for (const scenario of new Set(runs.map((run) => run.scenario))) {
    const ours = summaries.find((entry) => entry.target === "service" && entry.scenario === scenario)
    const theirs = summaries.find((entry) => entry.target === "plain" && entry.scenario === scenario)
    if (ours !== undefined && theirs !== undefined) comparisons.push(formatAreaComparison(scenario, ours, theirs))
  }
  return { summaries, comparisons }
}

/** The service on PGlite: cold start on a fresh DATA_DIR, two scenarios at 16 connections, a warm restart. */
const runEmbedded = async (scenarios: ReturnType<typeof makeScenarios>, accountNumbers: ReadonlyArray<string>) => {
  log("\nembedded database (PGlite)")
  const dataDir = tempDir("bench-pglite-")
  const coldStarts: Array<ColdStart> = []
  const embedded = await startService({ id: "service-pglite", databaseUrl: undefined, dataDir })
  coldStarts.push({
    database: "embedded (PGlite)",
    state: "fresh DATA_DIR (initdb + migrations)",
    ms: embedded.readyMs
  })
  const rssAtReady = memoryMb(embedded.pid, "VmRSS") ?? 0
  for (const accountNumber of accountNumbers) await linkVirtualAccount(embedded, accountNumber)
  const rows: Array<Row> = []
  for (const scenario of selected([scenarios.wheelView, scenarios.webhook])) {
    await warmUp(scenario, embedded)
    const row = await measure(scenario, embedded, 16, options.durationSeconds)
    rows.push(row)
    log(describeRow(row))
  }
  const peakRss = await stopTarget(embedded)
  const again = await startService({ id: "service-pglite", databaseUrl: undefined, dataDir })
  coldStarts.push({ database: "embedded (PGlite)", state: "warm restart (same DATA_DIR)", ms: again.readyMs })
  await stopTarget(again)
  return { rows, coldStarts, peakRss, rssAtReady }
}

const main = async () => {
  const startedAt = new Date()
  const loadStart = os.loadavg()
  log(
    `bench ${runId}: ${options.durationSeconds} s per run, ${options.warmupSeconds} s warm-up, connections ${options.connections.join("/")}`
  )

  bundleService()
  const given = process.env.DATABASE_URL
  const adminUrl = given ?? DEFAULT_ADMIN_URL
  const postgres = await serverVersion(adminUrl)
  let databaseUrl = given
  if (databaseUrl === undefined) {
    const name = `bench_${runId}`
    databaseUrl = await createDatabase(adminUrl, name)
    created.adminUrl = adminUrl
    created.database = name
    log(`created database ${name} on PostgreSQL ${postgres}`)
  } else {
    log(`benching DATABASE_URL (PostgreSQL ${postgres}); nothing will be dropped`)
  }

  sampler = makeDbWaitSampler(databaseUrl)
  const coldStarts: Array<ColdStart> = []
  const peakRss: Record<string, number> = {}
  const rssAtReady: Record<string, number> = {}
  const rows: Array<Row> = []
  // 128 users' virtual accounts, so deposits do not all queue on one wallet's lock.
  const base = Math.floor(Math.random() * 1e6) * 100
  const accountNumbers = Array.from({ length: 128 }, (_, i) => `99${String(base + i).padStart(8, "0")}`)
  const scenarios = makeScenarios({
    runId,
    accountNumbers,
    storeReturningPlayers: (userIds) => storeReturningPlayers(databaseUrl, userIds)
  })

  // The service first: it applies the migrations the reference server relies on.
  const service = await startService({ id: "service", databaseUrl, dataDir: tempDir("bench-service-") })
  coldStarts.push({ database: "postgresql", state: "fresh database (migrations applied)", ms: service.readyMs })
  rssAtReady.service = memoryMb(service.pid, "VmRSS") ?? 0
  log(`service ready in ${service.readyMs.toFixed(0)} ms (fresh database, migrations included)`)
  if (options.profileOnly) {
    peakRss.service = await stopTarget(service)
  } else {
    const matrix = await runMatrix(databaseUrl, scenarios, accountNumbers, service)
    rows.push(...matrix.rows)
    Object.assign(rssAtReady, matrix.rssAtReady)
    peakRss.service = await stopTarget(service)
    Object.assign(peakRss, matrix.peakRss)
    // A restart on the migrated database: what a deploy costs.
    const restarted = await startService({ id: "service", databaseUrl, dataDir: tempDir("bench-service-") })
    coldStarts.push({ database: "postgresql", state: "migrated database (restart)", ms: restarted.readyMs })
    await stopTarget(restarted)
  }

  const profiled = options.profile ? await runProfile(databaseUrl, scenarios) : { summaries: [], comparisons: [] }

  if (options.embedded) {
    const embedded = await runEmbedded(scenarios, accountNumbers)
    rows.push(...embedded.rows)
    coldStarts.push(...embedded.coldStarts)
    peakRss["service-pglite"] = embedded.peakRss
    rssAtReady["service-pglite"] = embedded.rssAtReady
  }

  await sampler.dispose()
  sampler = undefined
  const ratioRows = ratios(rows)
  const checkRows = options.profileOnly ? [] : checks(rows, ratioRows, peakRss.service ?? 0)
  if (rows.length > 0) log(`\n${formatRows(rows)}\n\n${formatRatios(ratioRows)}\n`)
  log(
    `cold start (spawn to GET /readyz 200):\n${coldStarts.map((entry) => `  ${entry.ms.toFixed(0).padStart(6)} ms  ${entry.database}, ${entry.state}`).join("\n")}\n`
  )
  log(
    `RSS (MB): at ready / peak over the whole life (VmHWM)\n${Object.entries(rssAtReady)
      .map(([name, mb]) => `  ${mb.toFixed(1).padStart(7)} / ${(peakRss[name] ?? 0).toFixed(1).padStart(7)}  ${name}`)
      .join("\n")}\n`
  )
  for (const { target, summary } of profiled.summaries) if (target === "service") log(`${formatSummary(summary)}\n`)
  for (const comparison of profiled.comparisons) log(`${comparison}\n`)
  if (checkRows.length > 0) log(`targets of issues 8 and 16 (this machine, this run):\n${formatChecks(checkRows)}\n`)

  const cpus = os.cpus()
  const results = {
    runId,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    options,
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0]?.model ?? "unknown",
      totalMemoryMb: Math.round(os.totalmem() / 2 ** 20),
      os: `${os.type()} ${os.release()} ${os.arch()}`,
      node: process.version,
      postgres,
      loadAverageAtStart: loadStart,
      loadAverageAtEnd: os.loadavg()
    },
    database: given === undefined ? { created: created.database, droppedAtEnd: true } : { given: true },
    rows,
    ratios: ratioRows,
    checks: checkRows,
    rssAtReadyMb: rssAtReady,
    peakRssMb: peakRss,
    coldStarts,
    serverErrors,
    profiles: profiled.summaries
  }
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`)
  log(`wrote ${RESULTS}`)
}

main()
  .catch((error: unknown) => {
    console.error(`\nbench failed: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 1
  })
  // Explicitly exit: a stray socket or timer must not keep a finished bench alive.
  .finally(() => cleanUp().finally(() => process.exit(process.exitCode ?? 0)))
