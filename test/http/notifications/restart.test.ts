import { assert, describe, it } from "@effect/vitest"
import { clientFor, freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import { credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect } from "effect"
import { inject } from "vitest"
import { tempDir } from "../../support/NodeProcess.ts"
import { deliver, linkAccount, send, startServer, tokenFor } from "../../support/ServerProcess.ts"
import { eventually } from "./Scenario.ts"

// Real server processes on one PostgreSQL database (the embedded one belongs to one process), with
// no push provider configured: development's sink takes the push, and every attempt is recorded in
// push_deliveries, which the test reads.
describe.runIf(inject("databaseMode") === "postgres")("a server killed after a credit commits", () => {
  it.live(
    "SIGKILL before the push is sent: the next start delivers it, once",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabaseUrl
        const sql = yield* clientFor(url)
        const userId = unique("user")
        const accountNumber = String(Math.floor(1e9 + Math.random() * 8e9))
        const token = `killed:${"K".repeat(70)}${Math.floor(Math.random() * 1e6)}`

        // The first process takes the deposit and dies before any worker of its own could send.
        const first = yield* startServer({
          DATABASE_URL: url,
          DATA_DIR: yield* tempDir("outbox-first-"),
          NOTIFICATIONS_WORKER: "off"
        })
        yield* linkAccount(first.port, accountNumber, userId)
        const registered = yield* send(first.port, "/v1/user/devices", {
          method: "PUT",
          body: JSON.stringify({ tokenType: "FCM", token }),
          headers: { "content-type": "application/json", authorization: `Bearer ${yield* tokenFor(userId)}` }
        })
        assert.strictEqual(registered.status, 201, registered.text)
        const body = JSON.stringify(credit({ reference: unique("VA-KILL"), accountNumber }))
        assert.strictEqual((yield* deliver(first.port, body)).status, 200)
        yield* first.server.kill("SIGKILL")
        yield* first.server.exit(10_000)

        const outbox = sql<{ status: string; attempts: number; provider_message_id: string | null }>`
          SELECT status, attempts, provider_message_id FROM notification_outbox WHERE user_id = ${userId}`
        const pushes = sql<{ provider_message_id: string | null }>`
          SELECT provider_message_id FROM push_deliveries WHERE token_last8 = ${token.slice(-8)}`
        assert.deepStrictEqual(yield* outbox, [{ status: "pending", attempts: 0, provider_message_id: null }])
        assert.deepStrictEqual(yield* pushes, [])

        // A new process, its worker on (the default), finds the committed row and sends it.
        const second = yield* startServer({ DATABASE_URL: url, DATA_DIR: yield* tempDir("outbox-second-") })
        const [row] = yield* eventually("the notification sent", outbox, (rows) => rows[0]?.status === "sent")
        assert.strictEqual(row!.attempts, 1)
        assert.match(row!.provider_message_id ?? "", /^local-/)
        // The redelivery the provider makes after the lost answer adds nothing.
        assert.strictEqual((yield* deliver(second.port, body)).status, 200)
        assert.deepStrictEqual(
          (yield* pushes).map((push) => push.provider_message_id),
          [row!.provider_message_id]
        )
        assert.strictEqual((yield* outbox).length, 1)
      }),
    120_000
  )
})
