/**
 * `node --conditions=payments-gaming-source bench/reconcile-import.ts [--lines 99990]
 * [--postings 1000000] [--keep]`: how long importing a day's settlement report takes (issue 32:
 * 100,000 lines against a ledger of a million postings in under 10 s, memory flat). Fills a fresh
 * database on the PostgreSQL at 127.0.0.1:5432 (or BENCH_DATABASE_ADMIN_URL) with `--lines` credited
 * webhook events of one day (raw bodies from examples/webhooks/virtual-account-credit.json) and a
 * ledger of `--postings` postings (their deposits and older ones), written by generate_series as
 * the service writes them; writes that day's report with the test generator (a share of each
 * break kind: packages/adapters/test/support/ReconcileReport.ts); then imports it in a process of
 * its own under /usr/bin/time, through the service's own use case (ReconciliationService.import on
 * the composition root's layers), and prints the import's wall time, CPU and peak RSS beside the
 * counts it found. The database is dropped at the end unless --keep. See docs/benchmarks.md.
 */

import { execFileSync, spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runMigrations } from "@payments-gaming/adapters/postgres/Migrations"
import * as PostgresClient from "@payments-gaming/adapters/postgres/PostgresClient"
import { generateReport } from "@payments-gaming/adapters/test/support/ReconcileReport"
import * as Layers from "@payments-gaming/composition/Layers"
import { ReconciliationService } from "@payments-gaming/domain/reconciliation"
import { ConfigProvider, Effect, Layer, Logger, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { ROOT } from "./lib/Children.ts"
import { createDatabase, DEFAULT_ADMIN_URL, dropDatabase } from "./lib/Database.ts"
import { insertAccounts, insertDepositPostings } from "./lib/LedgerFill.ts"
import { args, has, positive } from "./lib/ScriptFlags.ts"
import { cliFlags } from "./lib/Targets.ts"

const DATE = "2026-11-20"
const seconds = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e9

const database = (url: string) =>
  PostgresClient.layer({ url: Redacted.make(url), dataDir: undefined, maxConnections: 2, statementsPerConnection: 1 })

/** `--import <url> <file>`: the measured part, in its own process: one import of the report. */
const importOnly = async (url: string, file: string) => {
  const bytes = new Uint8Array(readFileSync(file))
  const sha256 = createHash("sha256").update(bytes).digest("hex")
  const started = process.hrtime.bigint()
  const result = await Effect.runPromise(
    ReconciliationService.use((service) => service.import({ date: DATE, bytes, sha256 })).pipe(
      Effect.provide(Layers.Reconciliation.pipe(Layer.provide(Layers.Ledger), Layer.provideMerge(database(url)))),
      // The import's own log line is the service's; the bench prints its own.
      Effect.provide(Logger.layer([])),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({}))),
      Effect.scoped
    )
  )
  const view = result.reconciliation
  console.log(
    JSON.stringify({ seconds: seconds(started), lines: view.lines, matched: view.matched, breaks: view.breaks })
  )
}

/** The day's credited events and the ledger around them, as the service writes them. */
const fill = (lines: number, postings: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const template = readFileSync(join(ROOT, "examples/webhooks/virtual-account-credit.json"), "utf8")
    const older = Math.max(0, Math.floor(postings / 2) - lines)
    yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SET LOCAL session_replication_role = replica`
        yield* sql`INSERT INTO virtual_accounts (account_number, user_id, currency)
          SELECT 'BENCHVA' || lpad(g::text, 4, '0'), 'bench-' || g, 'NGN' FROM generate_series(1, 1000) AS g`
        // One event a line: amounts 1.00 to 1000.99, a fee of 0.50, across the day.
        yield* sql`INSERT INTO webhook_events (kind, reference, dedup_key, raw_body, signature, received_at, outcome, processed_at)
          SELECT 'virtualaccount.credit', e.reference, 'virtualaccount.credit:' || e.reference,
            convert_to(jsonb_set(jsonb_set(jsonb_set(jsonb_set(jsonb_set(jsonb_set(jsonb_set(
              ${template}::jsonb,
              '{data,reference}', to_jsonb(e.reference)),
              '{data,amount}', to_jsonb(e.amount)),
              '{data,fee}', to_jsonb('0.50'::text)),
              '{data,settled_amount}', to_jsonb(e.amount - 0.50)),
              '{data,account_number}', to_jsonb(e.account)),
              '{data,virtual_account_number}', to_jsonb(e.account)),
              '{data,date}', to_jsonb(to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')))::text, 'UTF8'),
            'bench', e.at, 'processed', e.at
          FROM (SELECT 'BENCH-' || g AS reference, round((g % 100000 + 100) / 100.0, 2) AS amount,
                  'BENCHVA' || lpad((g % 1000 + 1)::text, 4, '0') AS account,
                  ${`${DATE}T00:00:00Z`}::timestamptz + g * (interval '86399 seconds' / ${lines}) AS at
                FROM generate_series(1, ${lines}) AS g) AS e`
        yield* insertAccounts
        yield* sql`INSERT INTO ledger_transactions (idempotency_key, kind, created_at)
          SELECT 'virtualaccount.credit:BENCH-' || g, 'deposit', ${`${DATE}T00:00:00Z`}::timestamptz + g * interval '1 millisecond'
          FROM generate_series(1, ${lines}) AS g
          UNION ALL
          SELECT 'virtualaccount.credit:OLDER-' || g, 'deposit', timestamptz '2026-01-01T00:00:00Z' + g * interval '1 millisecond'
          FROM generate_series(1, ${older}) AS g`
        yield* insertDepositPostings
      })
    )
    for (const table of ["webhook_events", "ledger_transactions", "ledger_postings"]) {
      yield* sql`VACUUM ANALYZE ${sql(table)}`
    }
  })

const main = async () => {
  // The generator adds its missing_in_ledger lines to the events it names: about as many lines as events.
  const lines = positive("--lines", 99_990)
  const postings = positive("--postings", 1_000_000)
  const adminUrl = process.env.BENCH_DATABASE_ADMIN_URL ?? DEFAULT_ADMIN_URL
  const name = `bench_reconcile_${process.pid}`
  const report = join(tmpdir(), `${name}.csv`)
  const url = await createDatabase(adminUrl, name)
  try {
    writeFileSync(report, "")
    const expected = await Effect.runPromise(
      Effect.gen(function* () {
        yield* runMigrations
        const started = process.hrtime.bigint()
        yield* fill(lines, postings)
        console.log(`filled ${lines} events and ${postings} postings in ${seconds(started).toFixed(1)} s`)
        return yield* generateReport({
          date: DATE,
          shares: { missingInReport: 0.01, amountMismatch: 0.01, statusMismatch: 0.5, missingInLedger: 0.01 },
          write: (chunk) => appendFileSync(report, chunk)
        })
      }).pipe(Effect.provide(database(url)), Effect.scoped)
    )
    const size = readFileSync(report).length
    console.log(`report: ${(size / 1024 / 1024).toFixed(1)} MiB; expected ${JSON.stringify(expected)}`)
    const child = spawnSync(
      "/usr/bin/time",
      [
        "-f",
        "%e %M %U %S",
        join(ROOT, "node_modules/.bin/node"),
        ...cliFlags(),
        // e.g. BENCH_IMPORT_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the import.
        ...(process.env.BENCH_IMPORT_NODE_FLAGS ?? "").split(" ").filter((flag) => flag !== ""),
        import.meta.filename,
        "--import",
        url,
        report
      ],
      { encoding: "utf8", maxBuffer: 1 << 20 }
    )
    const timing = child.stderr.trim().split("\n").at(-1)?.split(" ") ?? []
    console.log(`import: ${child.stdout.trim().split("\n").at(-1)}`)
    console.log(
      `import process: ${Number(timing[0]).toFixed(1)} s wall, ${(Number(timing[2]) + Number(timing[3])).toFixed(1)} s CPU, ` +
        `peak RSS ${(Number(timing[1]) / 1024).toFixed(0)} MiB, exit ${child.status}`
    )
    if (child.status !== 0) console.log(child.stderr)
    console.log(`machine: load average ${execFileSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).trim()}`)
  } finally {
    rmSync(report, { force: true })
    if (has("--keep")) console.log(`kept database ${url}`)
    else await dropDatabase(adminUrl, name)
  }
}

if (args[0] === "--import") await importOnly(args[1] as string, args[2] as string)
else await main()
