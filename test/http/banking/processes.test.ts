import { assert, describe, it } from "@effect/vitest"
import { clientFor, freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import { credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect } from "effect"
import { inject } from "vitest"
import { tempDir } from "../../support/NodeProcess.ts"
import { deliver, linkAccount, ngnBalance, startServer } from "../../support/ServerProcess.ts"

// Two server processes can share a PostgreSQL database, but not the embedded one: PGlite under a
// DATA_DIR belongs to the single process that opened it. So this runs in postgres mode only; CI
// sets CI=true, which makes the run fail when PostgreSQL is missing instead of skipping this.
describe.runIf(inject("databaseMode") === "postgres")("two server processes on one database", () => {
  it.live(
    "50 concurrent identical signed deliveries split across both servers credit once, every one answered 200",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabaseUrl
        const sql = yield* clientFor(url)
        const [a, b] = yield* Effect.all(
          [1, 2].map((n) =>
            Effect.flatMap(tempDir(`banking-two-${n}-`), (dataDir) =>
              startServer({ DATABASE_URL: url, DATA_DIR: dataDir })
            )
          ),
          { concurrency: "unbounded" }
        )
        assert.notStrictEqual(a?.server.pid, b?.server.pid)
        const ports = [a?.port as number, b?.port as number]

        const userId = unique("user")
        const accountNumber = String(Math.floor(1e9 + Math.random() * 8e9))
        yield* linkAccount(ports[0] as number, accountNumber, userId)
        const reference = unique("VA-TWO")
        const body = JSON.stringify(
          credit({ reference, accountNumber, amount: "2500.55", fee: "0.05", settled: "2500.50" })
        )

        const answers = yield* Effect.all(
          Array.from({ length: 50 }, (_, i) => deliver(ports[i % 2] as number, body)),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(
          answers.map((answer) => answer.status),
          Array(50).fill(200)
        )

        // Each server sees the one credit, whichever of them applied it.
        for (const port of ports) assert.strictEqual(yield* ngnBalance(port, userId), "2500.50")
        const events = yield* sql<{
          outcome: string
        }>`SELECT outcome FROM webhook_events WHERE reference = ${reference}`
        assert.deepStrictEqual(
          events.map((event) => event.outcome),
          ["processed"]
        )
        const transactions = yield* sql<{ count: string }>`
          SELECT count(*)::text AS count FROM ledger_transactions WHERE idempotency_key = ${`virtualaccount.credit:${reference}`}`
        assert.strictEqual(transactions[0]?.count, "1")
      }),
    90_000
  )
})
