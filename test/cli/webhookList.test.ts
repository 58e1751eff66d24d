import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { clientFor, freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import { credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect } from "effect"
import { inject } from "vitest"
import { runCli, tempDir } from "../support/NodeProcess.ts"
import { deliver, linkAccount, ngnBalance, SECRETS, startServer } from "../support/ServerProcess.ts"

const postgres = inject("databaseMode") === "postgres"

interface Page {
  readonly items: ReadonlyArray<{ id: string; kind: string; reference: string; outcome: string; receivedAt: string }>
  readonly nextCursor: string | null
}

// The CLI opens the database of DATABASE_URL itself (Direct), beside a server on the same database
// that takes the deliveries. Then the same commands without DATABASE_URL, with DATA_DIR naming that
// running server as its owner, go through its admin API (Service): the output must not change.
// Needs PostgreSQL: in pglite mode the server's embedded database cannot be shared.
describe("webhook list", () => {
  it.live.runIf(postgres)(
    "lists stored events newest first, paged and filtered, directly on DATABASE_URL and through the owning service",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabaseUrl
        const dataDir = yield* tempDir("webhook-list-")
        const direct = { ...SECRETS, DATA_DIR: dataDir, DATABASE_URL: url }
        const { server, port } = yield* startServer(direct)
        const sql = yield* clientFor(url)

        const account = String(Math.floor(1e9 + Math.random() * 8e9))
        const references = [unique("VA"), unique("VA"), unique("VA")]
        for (const reference of references) {
          const body = JSON.stringify(
            credit({ reference, accountNumber: account, amount: "10.00", fee: "0", settled: 10 })
          )
          assert.strictEqual((yield* deliver(port, body)).status, 200)
        }
        const ignored = JSON.stringify(
          credit({ reference: unique("IGN"), accountNumber: account, top: { virtualAccountCredit: false } })
        )
        assert.strictEqual((yield* deliver(port, ignored)).status, 200)
        const order = (yield* sql<{ id: string }>`SELECT id::text AS id FROM webhook_events
          ORDER BY received_at DESC, id DESC`).map((row) => row.id)
        assert.lengthOf(order, 4)

        // Two pages of two, joined by the cursor; the last has none.
        const first = yield* runCli(["webhook", "list", "--limit", "2", "--json"], direct)
        assert.strictEqual(first.code, 0, first.stderr)
        const page1: Page = JSON.parse(first.stdout)
        assert.isString(page1.nextCursor)
        const second = yield* runCli(
          ["webhook", "list", "--limit", "2", "--json", "--cursor", page1.nextCursor!],
          direct
        )
        assert.strictEqual(second.code, 0, second.stderr)
        const page2: Page = JSON.parse(second.stdout)
        assert.isNull(page2.nextCursor)
        assert.deepStrictEqual(
          [...page1.items, ...page2.items].map((item) => item.id),
          order
        )

        // Plain: a header, then one tab-separated line per event.
        const plain = yield* runCli(["webhook", "list", "--status", "unmatched"], direct)
        assert.strictEqual(plain.code, 0, plain.stderr)
        const [header, ...lines] = plain.stdout
          .trim()
          .split("\n")
          .map((line) => line.split("\t"))
        assert.deepStrictEqual(header, ["id", "kind", "reference", "outcome", "reason", "receivedAt"])
        assert.lengthOf(lines, 3)
        // A page that is not the last says how to ask for the next one, on stderr.
        const paged = yield* runCli(["webhook", "list", "--status", "unmatched", "--limit", "2"], direct)
        assert.lengthOf(paged.stdout.trim().split("\n"), 3)
        assert.match(paged.stderr, /^More unmatched webhook events: run again with --cursor \S+$/m)
        const none = yield* runCli(["webhook", "list", "--status", "rejected"], direct)
        assert.deepStrictEqual([none.code, none.stdout, none.stderr.trim()], [0, "", "No rejected webhook events"])
        assert.sameMembers(
          lines.map((fields) => fields[2]),
          references
        )
        for (const fields of lines) {
          assert.lengthOf(fields, 6)
          assert.deepStrictEqual([fields[1], fields[3]], ["virtualaccount.credit", "unmatched"])
          assert.match(fields[5] as string, /^\d{4}-\d{2}-\d{2}T.*Z$/)
        }
        const byKind = yield* runCli(["webhook", "list", "--kind", "ignored", "--json"], direct)
        assert.strictEqual(byKind.code, 0, byKind.stderr)
        assert.deepStrictEqual(
          (JSON.parse(byKind.stdout) as Page).items.map((item) => [item.kind, item.outcome]),
          [["ignored", "ignored"]]
        )

        for (const flags of [
          ["--limit", "0"],
          ["--limit", "201"],
          ["--cursor", "junk"],
          ["--status", "pending"]
        ]) {
          const bad = yield* runCli(["webhook", "list", ...flags], direct)
          assert.strictEqual(bad.code, 2, `${flags.join(" ")}: ${bad.stderr}`)
          // No event line: a refused flag lists nothing (the parser may print the usage).
          assert.notInclude(bad.stdout, "virtualaccount.credit\t")
        }

        // Through the service: DATA_DIR's owner is the running server; no DATABASE_URL.
        const base = `http://127.0.0.1:${port}`
        writeFileSync(
          join(dataDir, "owner.json"),
          JSON.stringify({ pid: server.pid, startedAt: new Date().toISOString(), nonce: randomUUID(), url: base })
        )
        const viaService = { ...SECRETS, DATA_DIR: dataDir, LOG_LEVEL: "debug" }
        const served = yield* runCli(["webhook", "list", "--limit", "2", "--json"], viaService)
        assert.strictEqual(served.code, 0, served.stderr)
        assert.include(served.stderr, `owned by the service at ${base}`)
        assert.deepStrictEqual(JSON.parse(served.stdout), page1)
        // By reference, on the database and through the service's API: that event alone.
        for (const via of [direct, viaService]) {
          const one = yield* runCli(["webhook", "list", "--reference", references[0] as string, "--json"], via)
          assert.strictEqual(one.code, 0, one.stderr)
          assert.deepStrictEqual(
            (JSON.parse(one.stdout) as Page).items.map((item) => item.reference),
            [references[0]]
          )
        }
        const servedPlain = yield* runCli(["webhook", "list", "--status", "unmatched"], viaService)
        assert.strictEqual(servedPlain.stdout, plain.stdout)

        // Replay through the service: by id, then by status; credited once.
        const userId = unique("user")
        yield* linkAccount(port, account, userId)
        const one = page1.items.find((item) => item.outcome === "unmatched") ?? page2.items[0]!
        const byId = yield* runCli(["webhook", "replay", one.id, "not-a-uuid", randomUUID()], viaService)
        assert.strictEqual(byId.code, 1, byId.stderr)
        assert.deepStrictEqual(byId.stdout.trim().split("\n")[1]?.split("\t"), [
          one.id,
          "virtualaccount.credit",
          one.reference,
          "yes",
          "processed",
          "-"
        ])
        assert.include(byId.stderr, "not-a-uuid")
        const byStatus = yield* runCli(["webhook", "replay", "--status", "unmatched", "--json"], viaService)
        assert.strictEqual(byStatus.code, 0, byStatus.stderr)
        const replayed: { results: Array<{ replayed: boolean; outcome: string }>; notFound: [] } = JSON.parse(
          byStatus.stdout
        )
        assert.lengthOf(replayed.results, 2)
        for (const result of replayed.results) assert.deepInclude(result, { replayed: true, outcome: "processed" })
        assert.strictEqual(yield* ngnBalance(port, userId), "30.00")
        const again = yield* runCli(["webhook", "replay", "--status", "unmatched"], viaService)
        assert.strictEqual(again.stdout, "")
        assert.match(again.stderr, /^No unmatched events$/m)
        assert.strictEqual(yield* ngnBalance(port, userId), "30.00")
      }),
    120_000
  )
})
