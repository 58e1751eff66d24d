/**
 * `node --conditions=payments-gaming-source bench/reconcile-report.ts --database-url <url> --date
 * YYYY-MM-DD --out <file> [--missing-in-report 0.01] [--amount-mismatch 0.01]
 * [--status-mismatch 0.5] [--missing-in-ledger 0.01] [--seed 32]`: writes the provider's
 * settlement report of a day from the webhook events of a database (issue 32), with the chosen
 * share of each break kind (`generateReport`, packages/adapters/test/support/ReconcileReport.ts),
 * and prints the counts an import of it must find, as JSON. Reads the events a page at a time and
 * appends each page's lines to the file, so its memory stays flat whatever the database holds. It
 * only reads: run it against the benchmark's database, never a production one.
 */
import { appendFileSync, writeFileSync } from "node:fs"
import * as PostgresClient from "@payments-gaming/adapters/postgres/PostgresClient"
import { generateReport } from "@payments-gaming/adapters/test/support/ReconcileReport"
import { Effect, Redacted } from "effect"
import { flag } from "./lib/ScriptFlags.ts"

const required = (name: string) => {
  const value = flag(name)
  if (value === undefined) throw new Error(`${name} is required`)
  return value
}
const share = (name: string, fallback: number) => {
  const value = Number(flag(name) ?? fallback)
  if (!(value >= 0 && value <= 1)) throw new Error(`${name}: a share between 0 and 1`)
  return value
}

const url = required("--database-url")
const date = required("--date")
if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error("--date: YYYY-MM-DD")
const out = required("--out")
const shares = {
  missingInReport: share("--missing-in-report", 0.01),
  amountMismatch: share("--amount-mismatch", 0.01),
  statusMismatch: share("--status-mismatch", 0.5),
  missingInLedger: share("--missing-in-ledger", 0.01)
}

writeFileSync(out, "")
const expected = await Effect.runPromise(
  generateReport({
    date,
    shares,
    seed: Number(flag("--seed") ?? 32),
    write: (chunk) => appendFileSync(out, chunk)
  }).pipe(
    Effect.provide(PostgresClient.layer({ url: Redacted.make(url), dataDir: undefined, maxConnections: 1 })),
    Effect.scoped
  )
)
console.log(JSON.stringify({ date, out, shares, expected }))
