import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import { replayBreaks, type StatementItem } from "@payments-gaming/domain/ledger"
import { credit, transferEvent, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect } from "effect"
import { inject } from "vitest"
import { runCli, tempDir } from "../support/NodeProcess.ts"
import { deliver, linkAccount, ngnBalance, SECRETS, send, startServer, tokenFor } from "../support/ServerProcess.ts"

const postgres = inject("databaseMode") === "postgres"

interface Listed {
  readonly items: ReadonlyArray<StatementItem>
  readonly nextCursor: string | null
}

const HEADER = "id,occurredAt,kind,direction,amount,balanceAfter,currency,reference"

// The CLI reads the database of DATABASE_URL itself (Direct), beside a server on the same database
// that took the movements; then, without DATABASE_URL and with DATA_DIR naming that server as its
// owner, through the server's admin API (Service): the output must not change.
// Needs PostgreSQL: in pglite mode the server's embedded database cannot be shared.
describe("wallet statement", () => {
  it.live.runIf(postgres)(
    "prints a user's statement as a table, CSV or JSON, paged, directly and through the owning service",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabaseUrl
        const dataDir = yield* tempDir("wallet-statement-")
        const direct = { ...SECRETS, DATA_DIR: dataDir, DATABASE_URL: url }
        const { server, port } = yield* startServer(direct)

        const userId = unique("holder")
        const account = String(Math.floor(1e9 + Math.random() * 8e9))
        yield* linkAccount(port, account, userId)
        // A provider's reference is third-party text: a comma, a quote, a formula.
        const awkward = `=HYPERLINK("x"),${unique("VA")}`
        for (const [reference, amount] of [
          [unique("VA"), "100.50"],
          [awkward, "20.00"]
        ] as const) {
          const body = JSON.stringify(credit({ reference, accountNumber: account, amount, fee: "0", settled: amount }))
          assert.strictEqual((yield* deliver(port, body)).status, 200)
        }
        const transfer = unique("TRF")
        const held = yield* send(port, "/v1/admin/transfers", {
          method: "POST",
          body: JSON.stringify({ reference: transfer, userId, amount: "2.50", currency: "NGN" }),
          headers: { "content-type": "application/json", authorization: `Bearer ${yield* tokenFor("ops", ["admin"])}` }
        })
        assert.strictEqual(held.status, 201, held.text)
        const failed = JSON.stringify(transferEvent({ outcome: "failed", reference: transfer, amount: "2.50" }))
        assert.strictEqual((yield* deliver(port, failed)).status, 200)

        // JSON: the whole statement, replaying to the wallet.
        const json = yield* runCli(["wallet", "statement", "--user", userId, "--json"], direct)
        assert.strictEqual(json.code, 0, json.stderr)
        const whole: Listed = JSON.parse(json.stdout)
        assert.isNull(whole.nextCursor)
        assert.deepStrictEqual(
          whole.items.map((item) => [item.kind, item.direction, item.amount, item.balanceAfter]),
          [
            ["transfer.return", "CREDIT", "2.50", "120.50"],
            ["transfer.hold", "DEBIT", "2.50", "118.00"],
            ["deposit", "CREDIT", "20.00", "120.50"],
            ["deposit", "CREDIT", "100.50", "100.50"]
          ]
        )
        assert.deepStrictEqual(replayBreaks(whole.items), [])
        assert.strictEqual(whole.items[0]!.balanceAfter, yield* ngnBalance(port, userId))
        assert.strictEqual(whole.items[2]!.reference, awkward)

        // Paged: --limit and --cursor join into the same list.
        const first = yield* runCli(["wallet", "statement", "--user", userId, "--limit", "3", "--json"], direct)
        assert.strictEqual(first.code, 0, first.stderr)
        const page1: Listed = JSON.parse(first.stdout)
        assert.lengthOf(page1.items, 3)
        assert.isString(page1.nextCursor)
        const rest = yield* runCli(
          ["wallet", "statement", "--user", userId, "--json", "--cursor", page1.nextCursor!],
          direct
        )
        assert.strictEqual(rest.code, 0, rest.stderr)
        const page2: Listed = JSON.parse(rest.stdout)
        assert.isNull(page2.nextCursor)
        assert.deepStrictEqual([...page1.items, ...page2.items], whole.items)

        // CSV: a header, one line per posting; the awkward reference quoted and defused. Any field
        // a spreadsheet would run as a formula is defused, an id that happens to start with "-"
        // (its 64-letter alphabet has one) as much as the reference.
        const defused = (value: unknown) => (/^[=+\-@]/.test(String(value)) ? `'${value}` : String(value))
        const csv = yield* runCli(["wallet", "statement", "--user", userId, "--csv"], direct)
        assert.strictEqual(csv.code, 0, csv.stderr)
        const lines = csv.stdout.trimEnd().split("\n")
        assert.strictEqual(lines[0], HEADER)
        assert.lengthOf(lines, 5)
        assert.strictEqual(lines[1], Object.values(whole.items[0]!).map(defused).join(","))
        assert.strictEqual(
          lines[3],
          [
            ...Object.values(whole.items[2]!).slice(0, 7).map(defused),
            `"'=HYPERLINK(""x""),${awkward.split(",")[1]}"`
          ].join(",")
        )

        // Table: a header and one aligned line per posting.
        const plain = yield* runCli(["wallet", "statement", "--user", userId], direct)
        assert.strictEqual(plain.code, 0, plain.stderr)
        const rows = plain.stdout.trimEnd().split("\n")
        assert.lengthOf(rows, 5)
        assert.match(rows[0]!, /^id\s+occurredAt\s+kind\s+direction\s+amount\s+balanceAfter\s+currency\s+reference$/)
        for (const [index, item] of whole.items.entries()) {
          const fields = rows[index + 1]!.split(/\s{2,}/).map((field) => field.trim())
          assert.deepStrictEqual(fields.slice(0, 7), Object.values(item).slice(0, 7))
          assert.isTrue(rows[index + 1]!.endsWith(item.reference))
        }
        // The amount columns are right-aligned: their last characters line up.
        const amountEnd = rows[0]!.indexOf("amount") + "amount".length
        for (const row of rows.slice(1)) assert.match(row.slice(0, amountEnd), /\d$/)

        // Filters: no coins, so nothing (CSV: the header only).
        const coins = yield* runCli(["wallet", "statement", "--user", userId, "--currency", "COIN", "--csv"], direct)
        assert.strictEqual(coins.code, 0, coins.stderr)
        assert.strictEqual(coins.stdout.trimEnd(), HEADER)
        assert.strictEqual(coins.stderr.trim(), "No postings")
        const since = yield* runCli(
          ["wallet", "statement", "--user", userId, "--from", whole.items[1]!.occurredAt, "--json"],
          direct
        )
        assert.strictEqual(since.code, 0, since.stderr)
        assert.includeMembers(
          (JSON.parse(since.stdout) as Listed).items.map((item) => item.id),
          [whole.items[0]!.id, whole.items[1]!.id]
        )

        for (const flags of [
          ["--currency", "ngn"],
          ["--from", "yesterday"],
          ["--to", "2026-11-21T00:00:00"],
          ["--from", "2026-11-22T00:00:00Z", "--to", "2026-11-21T00:00:00Z"],
          ["--limit", "0"],
          ["--cursor", "junk"],
          ["--csv", "--json"],
          ["--user", "x".repeat(129)]
        ]) {
          const bad = yield* runCli(["wallet", "statement", "--user", userId, ...flags], direct)
          assert.strictEqual(bad.code, 2, `${flags.join(" ")}: ${bad.stderr}`)
          assert.notInclude(bad.stdout, "deposit")
        }
        assert.strictEqual((yield* runCli(["wallet", "statement"], direct)).code, 2)

        // Through the service: DATA_DIR's owner is the running server; no DATABASE_URL.
        const base = `http://127.0.0.1:${port}`
        writeFileSync(
          join(dataDir, "owner.json"),
          JSON.stringify({ pid: server.pid, startedAt: new Date().toISOString(), nonce: randomUUID(), url: base })
        )
        const viaService = { ...SECRETS, DATA_DIR: dataDir, LOG_LEVEL: "debug" }
        const served = yield* runCli(["wallet", "statement", "--user", userId, "--json"], viaService)
        assert.strictEqual(served.code, 0, served.stderr)
        assert.include(served.stderr, `owned by the service at ${base}`)
        assert.deepStrictEqual(JSON.parse(served.stdout), whole)
        const servedCsv = yield* runCli(["wallet", "statement", "--user", userId, "--csv"], viaService)
        assert.strictEqual(servedCsv.stdout, csv.stdout)
        const servedPage = yield* runCli(
          ["wallet", "statement", "--user", userId, "--limit", "3", "--json"],
          viaService
        )
        assert.deepStrictEqual(JSON.parse(servedPage.stdout), page1)
        const servedBad = yield* runCli(["wallet", "statement", "--user", userId, "--currency", "ngn"], viaService)
        assert.strictEqual(servedBad.code, 2, servedBad.stderr)
      }),
    120_000
  )
})
