import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { userInfo } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import { credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { creditLine, freshDay, HEADER } from "@payments-gaming/domain/test/support/reconciliationContract"
import { Effect } from "effect"
import { inject } from "vitest"
import { CLI, runCli, runNode, tempDir } from "../support/NodeProcess.ts"
import { deliver, linkAccount, ngnBalance, SECRETS, startServer } from "../support/ServerProcess.ts"

const postgres = inject("databaseMode") === "postgres"

interface ReconciliationJson {
  readonly id: string
  readonly date: string
  readonly lines: number
  readonly matched: number
  readonly breaks: { open: number; resolved: number; byKind: Record<string, number> }
}
interface BreakJson {
  readonly id: string
  readonly kind: string
  readonly reference: string
  readonly status: string
  readonly resolution: { action: string; resolvedBy: string; transactionId: string | null } | null
}
interface Page<Item> {
  readonly items: ReadonlyArray<Item>
  readonly nextCursor: string | null
}

const operator = `cli:${userInfo().username}`

const creditWebhook = (day: string, reference: string, accountNumber: string, amount: string) =>
  JSON.stringify(
    credit({ reference, accountNumber, amount, fee: "0", settled: amount, data: { date: `${day}T09:00:00Z` } })
  )

const writeReport = (dir: string, name: string, lines: ReadonlyArray<string>) => {
  const path = join(dir, name)
  writeFileSync(path, `${HEADER}\n${lines.join("\n")}\n`)
  return path
}

// The CLI opens the database of DATABASE_URL itself (Direct), beside a server on the same database;
// then, without DATABASE_URL and with DATA_DIR naming that running server as its owner, the same
// commands go through its admin API (Service): the answers must not change. Needs PostgreSQL: in
// pglite mode the server's embedded database cannot be shared.
describe("reconcile", () => {
  it.live.runIf(postgres)(
    "imports, lists, shows, lists breaks and resolves, directly on DATABASE_URL and through the owning service",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabaseUrl
        const dataDir = yield* tempDir("reconcile-")
        const direct = { ...SECRETS, DATA_DIR: dataDir, DATABASE_URL: url }
        const { server, port } = yield* startServer(direct)

        const day = freshDay()
        const userId = unique("recon-cli-user")
        const account = String(Math.floor(1e9 + Math.random() * 8e9))
        yield* linkAccount(port, account, userId)
        const received = unique("VA-seen")
        const missed = unique("VA-missed")
        const other = unique("VA-other")
        assert.strictEqual((yield* deliver(port, creditWebhook(day, received, account, "10.00"))).status, 200)
        const file = writeReport(dataDir, "report.csv", [
          creditLine({ reference: received, accountNumber: account, amount: "10.00", day }),
          creditLine({
            reference: missed,
            accountNumber: account,
            amount: "25.00",
            fee: "1.00",
            settled: "24.00",
            day
          }),
          creditLine({ reference: other, accountNumber: account, amount: "3.00", day })
        ])

        // Import: new, then the same file again (the same reconciliation, said on stderr).
        const first = yield* runCli(["reconcile", "import", file, "--date", day, "--json"], direct)
        assert.strictEqual(first.code, 0, first.stderr)
        const imported: { created: boolean; reconciliation: ReconciliationJson } = JSON.parse(first.stdout)
        assert.isTrue(imported.created)
        const id = imported.reconciliation.id
        assert.deepInclude(imported.reconciliation, { date: day, lines: 3, matched: 1 })
        assert.strictEqual(imported.reconciliation.breaks.byKind.missing_in_ledger, 2)
        const again = yield* runCli(["reconcile", "import", file, "--date", day], direct)
        assert.strictEqual(again.code, 0, again.stderr)
        assert.include(again.stdout, `id\t${id}\n`)
        assert.match(again.stderr, /imported for .* already/)

        const listed = yield* runCli(["reconcile", "list", "--json"], direct)
        assert.strictEqual(listed.code, 0, listed.stderr)
        const page: Page<ReconciliationJson> = JSON.parse(listed.stdout)
        assert.deepStrictEqual(
          page.items.map((item) => item.id),
          [id]
        )
        const shown = yield* runCli(["reconcile", "show", id], direct)
        assert.strictEqual(shown.code, 0, shown.stderr)
        assert.include(shown.stdout, `date\t${day}\n`)
        assert.include(shown.stdout, "open\t2\n")

        const breaksOut = yield* runCli(["reconcile", "breaks", id, "--kind", "missing_in_ledger", "--json"], direct)
        assert.strictEqual(breaksOut.code, 0, breaksOut.stderr)
        const breaks: Page<BreakJson> = JSON.parse(breaksOut.stdout)
        assert.deepStrictEqual(
          breaks.items.map((item) => item.reference),
          [missed, other]
        )
        const [missedBreak, otherBreak] = breaks.items as [BreakJson, BreakJson]
        const plainBreaks = yield* runCli(["reconcile", "breaks", id, "--status", "open"], direct)
        assert.strictEqual(plainBreaks.code, 0, plainBreaks.stderr)
        const [header, ...rows] = plainBreaks.stdout.trim().split("\n")
        assert.deepStrictEqual(header?.split("\t"), [
          "id",
          "kind",
          "eventKind",
          "reference",
          "status",
          "line",
          "report",
          "ledger",
          "resolution"
        ])
        assert.lengthOf(rows, 2)

        // Credit the missed deposit directly; its webhook arriving later moves nothing.
        const credited = yield* runCli(
          ["reconcile", "resolve", id, missedBreak.id, "--action", "credit", "--note", "lost in the outage", "--json"],
          direct
        )
        assert.strictEqual(credited.code, 0, credited.stderr)
        const resolved: BreakJson = JSON.parse(credited.stdout)
        assert.strictEqual(resolved.status, "resolved")
        assert.deepInclude(resolved.resolution!, { action: "credit", resolvedBy: operator })
        assert.isString(resolved.resolution?.transactionId)
        assert.strictEqual(yield* ngnBalance(port, userId), "34.00")
        assert.strictEqual((yield* deliver(port, creditWebhook(day, missed, account, "24.00"))).status, 200)
        assert.strictEqual(yield* ngnBalance(port, userId), "34.00")

        // Bad usage is exit 2, before anything is opened; a refused file exit 1, listing its lines.
        for (const args of [
          ["reconcile", "import", file, "--date", "2026-02-30"],
          ["reconcile", "show", "not-a-uuid"],
          ["reconcile", "breaks", id, "--status", "pending"],
          ["reconcile", "list", "--cursor", "junk"],
          ["reconcile", "resolve", id, otherBreak.id, "--action", "refund", "--note", "x"],
          ["reconcile", "resolve", id, otherBreak.id, "--action", "accept", "--note", ""]
        ]) {
          const bad = yield* runCli(args, direct)
          assert.strictEqual(bad.code, 2, `${args.join(" ")}: ${bad.stderr}`)
        }
        const badFile = writeReport(dataDir, "bad.csv", [
          creditLine({ reference: unique("VA"), accountNumber: account, amount: "ten", day })
        ])
        const refused = yield* runCli(["reconcile", "import", badFile, "--date", day], direct)
        assert.strictEqual(refused.code, 1, refused.stderr)
        assert.deepStrictEqual(refused.stdout.trim().split("\n")[0]?.split("\t"), ["line", "column", "message"])
        assert.match(refused.stdout, /^2\tamount\t/m)
        assert.include(refused.stderr, "nothing was stored")
        const unknown = yield* runCli(["reconcile", "show", randomUUID()], direct)
        assert.strictEqual(unknown.code, 1)
        assert.include(unknown.stderr, "no reconciliation")

        // Through the service: DATA_DIR's owner is the running server; no DATABASE_URL.
        const base = `http://127.0.0.1:${port}`
        writeFileSync(
          join(dataDir, "owner.json"),
          JSON.stringify({ pid: server.pid, startedAt: new Date().toISOString(), nonce: randomUUID(), url: base })
        )
        const viaService = { ...SECRETS, DATA_DIR: dataDir, LOG_LEVEL: "debug" }
        for (const args of [
          ["reconcile", "list", "--json"],
          ["reconcile", "show", id, "--json"],
          ["reconcile", "breaks", id, "--json"]
        ]) {
          const onDatabase = yield* runCli(args, direct)
          const served = yield* runCli(args, viaService)
          assert.strictEqual(served.code, 0, served.stderr)
          assert.include(served.stderr, `owned by the service at ${base}`)
          assert.deepStrictEqual(JSON.parse(served.stdout), JSON.parse(onDatabase.stdout), args.join(" "))
        }
        const servedAgain = yield* runCli(["reconcile", "import", file, "--date", day, "--json"], viaService)
        assert.strictEqual(servedAgain.code, 0, servedAgain.stderr)
        assert.deepInclude(JSON.parse(servedAgain.stdout), { created: false })
        const accepted = yield* runCli(
          ["reconcile", "resolve", id, otherBreak.id, "--action", "accept", "--note", "provider confirmed", "--json"],
          viaService
        )
        assert.strictEqual(accepted.code, 0, accepted.stderr)
        assert.deepInclude((JSON.parse(accepted.stdout) as BreakJson).resolution!, {
          action: "accept",
          resolvedBy: operator,
          transactionId: null
        })
        const twice = yield* runCli(
          ["reconcile", "resolve", id, missedBreak.id, "--action", "credit", "--note", "again"],
          viaService
        )
        assert.strictEqual(twice.code, 1, twice.stderr)
        assert.include(twice.stderr, "resolved already")
        assert.strictEqual(yield* ngnBalance(port, userId), "34.00")
        const servedRefused = yield* runCli(["reconcile", "import", badFile, "--date", day, "--json"], viaService)
        assert.strictEqual(servedRefused.code, 1, servedRefused.stderr)
        const problems: { refused: boolean; errors: Array<{ line: number; column: string }> } = JSON.parse(
          servedRefused.stdout
        )
        assert.isTrue(problems.refused)
        assert.deepInclude(problems.errors[0]!, { line: 2, column: "amount" })
        const servedUnknown = yield* runCli(["reconcile", "breaks", randomUUID()], viaService)
        assert.strictEqual(servedUnknown.code, 1)
        assert.include(servedUnknown.stderr, "no reconciliation")
        const newDay = freshDay()
        const fresh = writeReport(dataDir, "fresh.csv", [
          creditLine({ reference: unique("VA"), accountNumber: account, amount: "1.00", day: newDay })
        ])
        const servedImport = yield* runCli(["reconcile", "import", fresh, "--date", newDay, "--json"], viaService)
        assert.strictEqual(servedImport.code, 0, servedImport.stderr)
        assert.deepInclude(JSON.parse(servedImport.stdout), { created: true })
      }),
    180_000
  )

  it.live(
    "imports and lists on a DATA_DIR no service owns (the embedded database, opened by the command)",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* tempDir("reconcile-embedded-")
        const env = { DATA_DIR: dataDir }
        const day = freshDay()
        const file = writeReport(dataDir, "report.csv", [
          creditLine({ reference: unique("VA"), accountNumber: "9900000009", amount: "5.00", day })
        ])
        const imported = yield* runNode(CLI, ["reconcile", "import", file, "--date", day, "--json"], env, 180_000)
        assert.strictEqual(imported.code, 0, imported.stderr)
        const { reconciliation } = JSON.parse(imported.stdout) as { reconciliation: ReconciliationJson }
        assert.strictEqual(reconciliation.breaks.byKind.missing_in_ledger, 1)
        const listed = yield* runNode(CLI, ["reconcile", "list"], env, 180_000)
        assert.strictEqual(listed.code, 0, listed.stderr)
        assert.match(listed.stdout, new RegExp(`^${reconciliation.id}\\t${day}\\t`, "m"))
      }),
    240_000
  )
})
