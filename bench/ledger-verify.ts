/**
 * `node --conditions=payments-gaming-source bench/ledger-verify.ts [--transactions 1000000] [--seal-only] [--keep]`:
 * how long the sealed ledger takes to seal and to verify a large history (issue 31). Fills a fresh
 * database on the PostgreSQL at 127.0.0.1:5432 (or BENCH_DATABASE_ADMIN_URL) with N balanced
 * deposits of two postings each, written by generate_series as the ledger would write them; seals
 * them all with the service's own sealer (in this process), and prints its wall time, this
 * process's CPU time (the collector's threads included), PostgreSQL's (every postgres process of
 * the machine: keep the database otherwise idle), and the event loop's longest block while it
 * sealed: an upper bound, to the 1 ms of the delay histogram's timer, collector pauses included. In
 * the service the sealer runs beside the requests, so a request can wait that long behind it
 * (issue 35); here the seals run back to back over a backlog, in a small heap. Then,
 * unless --seal-only, runs `ledger verify` and `ledger export` as the CLI, each as its own process
 * under /usr/bin/time, and prints their wall time, CPU time and peak RSS. Last, the machine's load
 * average. The database is dropped at the end unless --keep. See docs/benchmarks.md.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { runMigrations } from "@payments-gaming/adapters/postgres/Migrations"
import * as PostgresClient from "@payments-gaming/adapters/postgres/PostgresClient"
import * as Layers from "@payments-gaming/composition/Layers"
import { SealService } from "@payments-gaming/domain/ledger"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { postgresCpuMs, ROOT } from "./lib/Children.ts"
import { createDatabase, DEFAULT_ADMIN_URL, dropDatabase } from "./lib/Database.ts"
import { insertAccounts, insertDepositPostings } from "./lib/LedgerFill.ts"
import { has, positive } from "./lib/ScriptFlags.ts"
import { cliFlags } from "./lib/Targets.ts"

const transactions = positive("--transactions", 1_000_000)
const keep = has("--keep")
const sealOnly = has("--seal-only")
const adminUrl = process.env.BENCH_DATABASE_ADMIN_URL ?? DEFAULT_ADMIN_URL
const name = `bench_ledger_verify_${process.pid}`

const seconds = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e9

/** The deposits, as LedgerPostgres writes them (the balance trigger off for the bulk insert only). */
const fill = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SET LOCAL session_replication_role = replica`
      yield* insertAccounts
      yield* sql`INSERT INTO ledger_transactions (idempotency_key, kind, created_at)
        SELECT 'virtualaccount.credit:BENCH-' || g, 'deposit', timestamptz '2026-01-01T00:00:00Z' + g * interval '1 millisecond'
        FROM generate_series(1, ${transactions}) AS g`
      yield* insertDepositPostings
    })
  )
  yield* sql`VACUUM ANALYZE ledger_transactions`
  yield* sql`VACUUM ANALYZE ledger_postings`
})

/** Runs the CLI under /usr/bin/time: its wall time and CPU time (s), peak RSS (MiB), exit code and stdout's last line. */
const timedCli = (command: ReadonlyArray<string>, url: string, stdout: "pipe" | "ignore") => {
  const result = spawnSync(
    "/usr/bin/time",
    [
      "-f",
      "%e %M %U %S",
      join(ROOT, "node_modules/.bin/node"),
      ...cliFlags(),
      join(ROOT, "apps/cli/src/main.js"),
      ...command
    ],
    {
      env: { ...process.env, DATABASE_URL: url, DATA_DIR: join(tmpdir(), "bench-ledger-verify") },
      encoding: "utf8",
      maxBuffer: 1 << 20,
      stdio: ["ignore", stdout, "pipe"]
    }
  )
  const timing = result.stderr.trim().split("\n").at(-1)?.split(" ") ?? []
  return {
    wall: Number(timing[0]),
    rssMiB: Number(timing[1]) / 1024,
    cpu: Number(timing[2]) + Number(timing[3]),
    status: result.status,
    line: (result.stdout ?? "").trim().split("\n").at(-1) ?? ""
  }
}

const main = async () => {
  const url = await createDatabase(adminUrl, name)
  try {
    const database = PostgresClient.layer({
      url: Redacted.make(url),
      dataDir: undefined,
      maxConnections: 2,
      statementsPerConnection: 1
    })
    const sealing = Layers.Seals.pipe(Layer.provideMerge(database))
    await Effect.runPromise(
      Effect.gen(function* () {
        yield* runMigrations
        let started = process.hrtime.bigint()
        yield* fill
        console.log(
          `filled ${transactions} transactions (${2 * transactions} postings) in ${seconds(started).toFixed(1)} s`
        )
        const seals = yield* SealService
        // Nothing else runs in this process while it seals, so the loop's longest delay bounds the
        // sealer's longest synchronous stretch, collector pauses included (see the top of the file).
        const loop = monitorEventLoopDelay({ resolution: 1 })
        loop.enable()
        const cpu = process.cpuUsage()
        const postgresBefore = postgresCpuMs()
        started = process.hrtime.bigint()
        const written = yield* seals.sealPending
        const wall = seconds(started)
        const used = process.cpuUsage(cpu)
        const postgresSeconds = (postgresCpuMs() - postgresBefore) / 1000
        loop.disable()
        const cpuSeconds = (used.user + used.system) / 1e6
        console.log(
          `sealed them in ${written.length} seals in ${wall.toFixed(1)} s: ${((wall * 1e6) / transactions).toFixed(1)} µs ` +
            `a transaction, ${((cpuSeconds * 1e6) / transactions).toFixed(1)} µs of this process's CPU a transaction ` +
            `(${cpuSeconds.toFixed(1)} s), ${((postgresSeconds * 1e6) / transactions).toFixed(1)} µs of PostgreSQL's ` +
            `(${postgresSeconds.toFixed(1)} s); the event loop's longest block at most ${(loop.max / 1e6).toFixed(0)} ms`
        )
      }).pipe(Effect.provide(sealing), Effect.scoped)
    )
    if (!sealOnly) {
      const verify = timedCli(["ledger", "verify"], url, "pipe")
      console.log(
        `ledger verify: ${verify.wall.toFixed(1)} s wall, ${verify.cpu.toFixed(1)} s CPU, peak RSS ${verify.rssMiB.toFixed(0)} MiB, exit ${verify.status}`
      )
      console.log(`  ${verify.line}`)
      const exported = timedCli(["ledger", "export"], url, "ignore")
      console.log(
        `ledger export: ${exported.wall.toFixed(1)} s wall, ${exported.cpu.toFixed(1)} s CPU, peak RSS ${exported.rssMiB.toFixed(0)} MiB, exit ${exported.status}`
      )
    }
    const load = execFileSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).trim()
    console.log(`machine: load average ${load}`)
  } finally {
    if (keep) console.log(`kept database ${url}`)
    else await dropDatabase(adminUrl, name)
  }
}

await main()
