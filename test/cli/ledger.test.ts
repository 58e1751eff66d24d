import { assert, describe, it } from "@effect/vitest"
import { clientFor, freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import { credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect, Schedule } from "effect"
import { inject } from "vitest"
import { runCli, tempDir } from "../support/NodeProcess.ts"
import { deliver, linkAccount, SECRETS, startServer } from "../support/ServerProcess.ts"

const postgres = inject("databaseMode") === "postgres"

interface Exported {
  readonly seal: number
  readonly sealHash: string
  readonly previousHash: string
  readonly id: string
  readonly key: string
  readonly kind: string
  readonly createdAt: string
  readonly postings: ReadonlyArray<{ id: string; account: string; currency: string; amount: string }>
}

// The real server as a process seals in the background; the real CLI verifies, as an operator
// would, while a DBA with the superuser changes rows behind the service's back.
// Needs PostgreSQL: the embedded database cannot be opened beside the server that owns it.
describe("ledger verify and ledger export", () => {
  it.live.runIf(postgres)(
    "verify exits 0 on the sealed history, 1 naming the seal and transaction a DBA changed, 0 once restored",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabaseUrl
        const dataDir = yield* tempDir("ledger-verify-")
        const env = { ...SECRETS, DATA_DIR: dataDir, DATABASE_URL: url }
        const { port } = yield* startServer({ ...env, LEDGER_SEAL_INTERVAL: "200 millis" })
        const db = yield* clientFor(url)

        const account = String(Math.floor(1e9 + Math.random() * 8e9))
        yield* linkAccount(port, account, unique("holder"))
        for (const amount of ["100.50", "20.00", "7.25"]) {
          const body = JSON.stringify(
            credit({ reference: unique("VA"), accountNumber: account, amount, fee: "0", settled: amount })
          )
          assert.strictEqual((yield* deliver(port, body)).status, 200)
        }
        // The server's sealer, within its interval: asked again until it has (no timing asserted).
        yield* Effect.gen(function* () {
          const [row] = yield* db<{ unsealed: string }>`SELECT count(*)::text AS unsealed FROM ledger_transactions t
            WHERE NOT EXISTS (SELECT 1 FROM ledger_seal_members m WHERE m.transaction_id = t.id)`
          if (row?.unsealed !== "0") return yield* Effect.fail("not sealed yet")
        }).pipe(Effect.retry(Schedule.spaced("100 millis")), Effect.timeout("30 seconds"))
        const [head] = yield* db<{ hash: string; sequence: string }>`SELECT hash, sequence::text AS sequence
          FROM ledger_seals ORDER BY sequence DESC LIMIT 1`
        const [counts] = yield* db<{ seals: string }>`SELECT count(*)::text AS seals FROM ledger_seals`

        const ok = yield* runCli(["ledger", "verify"], env)
        assert.strictEqual(ok.code, 0, ok.stderr)
        assert.strictEqual(ok.stdout.trim(), `verified 3 transactions in ${counts?.seals} seals, head ${head?.hash}`)
        const published = yield* runCli(["ledger", "verify", "--head", head?.hash ?? "", "--json"], env)
        assert.strictEqual(published.code, 0, published.stderr)
        assert.deepStrictEqual(JSON.parse(published.stdout), {
          verified: true,
          transactions: 3,
          seals: Number(counts?.seals),
          head: head?.hash
        })
        const unknownHead = yield* runCli(["ledger", "verify", "--head", "ab".repeat(32)], env)
        assert.strictEqual(unknownHead.code, 1)
        assert.include(unknownHead.stdout, "is not the hash of any seal")
        assert.strictEqual((yield* runCli(["ledger", "verify", "--head", "nothex"], env)).code, 2)

        // The export: one line per sealed transaction, enough to recompute (docs/ledger-seals.md).
        const exported = yield* runCli(["ledger", "export"], env)
        assert.strictEqual(exported.code, 0, exported.stderr)
        const lines: Array<Exported> = exported.stdout
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line))
        assert.lengthOf(lines, 3)
        const victim = lines[1] as Exported
        assert.deepStrictEqual(Object.keys(victim).sort(), [
          "createdAt",
          "id",
          "key",
          "kind",
          "postings",
          "previousHash",
          "seal",
          "sealHash"
        ])
        assert.match(victim.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)
        assert.deepStrictEqual(victim.postings.map((posting) => posting.amount).sort(), ["-2000", "2000"])
        const upTo = yield* runCli(["ledger", "export", "--to", String(lines[0]?.seal)], env)
        assert.isTrue(
          upTo.stdout
            .trim()
            .split("\n")
            .every((line) => JSON.parse(line).seal <= (lines[0]?.seal ?? 0))
        )
        assert.strictEqual((yield* runCli(["ledger", "export", "--from", "2", "--to", "1"], env)).code, 2)

        // With the triggers off, as the superuser: an amount changed.
        const posting = victim.postings.find((entry) => entry.amount === "2000")
        const tamper = (statement: string) =>
          db.withTransaction(
            Effect.gen(function* () {
              yield* db.unsafe("ALTER TABLE ledger_postings DISABLE TRIGGER ALL")
              yield* db.unsafe(statement)
              yield* db.unsafe("ALTER TABLE ledger_postings ENABLE TRIGGER ALL")
            })
          )
        yield* tamper(`UPDATE ledger_postings SET amount_minor = 200000 WHERE id = ${posting?.id}`)
        const caught = yield* runCli(["ledger", "verify"], env)
        assert.strictEqual(caught.code, 1, caught.stdout)
        assert.include(caught.stdout, `seal ${victim.seal} differs: transaction ${victim.id} (${victim.key})`)
        const caughtJson = yield* runCli(["ledger", "verify", "--json"], env)
        assert.strictEqual(caughtJson.code, 1)
        assert.deepInclude(JSON.parse(caughtJson.stdout), {
          verified: false,
          seal: victim.seal,
          transaction: victim.id
        })

        yield* tamper(`UPDATE ledger_postings SET amount_minor = 2000 WHERE id = ${posting?.id}`)
        const restored = yield* runCli(["ledger", "verify"], env)
        assert.strictEqual(restored.code, 0, restored.stdout)
        assert.strictEqual(restored.stdout.trim(), ok.stdout.trim())
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "verify refuses, naming the service, when a running service owns the embedded database",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* tempDir("ledger-embedded-")
        yield* startServer({ DATA_DIR: dataDir })
        const refused = yield* runCli(["ledger", "verify"], { ...SECRETS, DATA_DIR: dataDir })
        assert.strictEqual(refused.code, 1, refused.stdout)
        assert.include(refused.stderr, "stop that service first, or run with DATABASE_URL")
      }).pipe(Effect.scoped),
    120_000
  )
})
