import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { clientFor, freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import { credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect } from "effect"
import { inject } from "vitest"
import { runCli, tempDir } from "../support/NodeProcess.ts"
import { deliver, linkAccount, SECRETS, send, startServer, tokenFor } from "../support/ServerProcess.ts"

const postgres = inject("databaseMode") === "postgres"

/** Polls until `check` holds: the server's worker sends on its own schedule. */
const until = <A, E, R>(read: Effect.Effect<A, E, R>, check: (value: A) => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 400; i++) {
      const value = yield* read
      if (check(value)) return value
      yield* Effect.sleep("50 millis")
    }
    return assert.fail("not reached")
  })

// The server delivers through development's sink; a notification is parked by hand (as a provider
// refusing our credentials would), then the CLI lists and retries it: directly on DATABASE_URL,
// then through the server that owns DATA_DIR, and the server's worker sends it again.
describe("notifications list and retry", () => {
  it.live.runIf(postgres)(
    "list the failed, send them again, directly on DATABASE_URL and through the owning service",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabaseUrl
        const dataDir = yield* tempDir("notifications-cli-")
        const direct = { ...SECRETS, DATA_DIR: dataDir, DATABASE_URL: url }
        const { server, port } = yield* startServer(direct)
        const sql = yield* clientFor(url)

        const userId = unique("user")
        const account = String(Math.floor(1e9 + Math.random() * 8e9))
        yield* linkAccount(port, account, userId)
        const registered = yield* send(port, "/v1/user/devices", {
          method: "PUT",
          body: JSON.stringify({ tokenType: "APNS", token: "ab".repeat(32) }),
          headers: { "content-type": "application/json", authorization: `Bearer ${yield* tokenFor(userId)}` }
        })
        assert.strictEqual(registered.status, 201, registered.text)
        assert.strictEqual(
          (yield* deliver(port, JSON.stringify(credit({ reference: unique("VA-CLI"), accountNumber: account }))))
            .status,
          200
        )
        const rows = sql<{ id: string; status: string; attempts: number }>`
          SELECT id::text AS id, status, attempts FROM notification_outbox WHERE user_id = ${userId}`
        const [row] = yield* until(rows, (all) => all[0]?.status === "sent")
        const park = sql`UPDATE notification_outbox SET status = 'failed', attempts = 8, sent_at = NULL,
          provider_message_id = NULL, last_error = 'AUTH_ERROR: refused' WHERE id = ${row!.id}::uuid`
        yield* park

        const listed = yield* runCli(["notifications", "list", "--status", "failed", "--json"], direct)
        assert.strictEqual(listed.code, 0, listed.stderr)
        const views = JSON.parse(listed.stdout)
        assert.deepStrictEqual(
          views.map((view: { id: string; status: string }) => [view.id, view.status]),
          [[row!.id, "failed"]]
        )
        // Each row carries its sends as the delivery log has them: here the development sink's one.
        assert.strictEqual(views[0].resends, 0)
        assert.deepStrictEqual(
          views[0].deliveries.map((sent: Record<string, unknown>) => [sent.success, sent.collapseKey, sent.resend]),
          [[true, row!.id, false]]
        )
        const plain = yield* runCli(["notifications", "list", "--status", "failed"], direct)
        assert.match(
          plain.stdout,
          new RegExp(
            `^id\tstatus\tattempts\tuserId\ttemplateCode\tlastError\tcreatedAt\tresends\n${row!.id}\tfailed\t8\t${userId}\tDEPOSIT_RECEIVED\tAUTH_ERROR: refused\t[^\t]+\t0\n`
          )
        )
        assert.strictEqual((yield* runCli(["notifications", "list", "--status", "lost"], direct)).code, 2)
        assert.strictEqual((yield* runCli(["notifications", "retry"], direct)).code, 2)

        // By id, with an id that names nothing: the real one is retried, the command fails naming the other.
        const byId = yield* runCli(["notifications", "retry", row!.id, "not-a-uuid"], direct)
        assert.strictEqual(byId.code, 1)
        assert.strictEqual(byId.stdout.trim(), `id\tretried\tstatus\n${row!.id}\tyes\tpending`)
        assert.include(byId.stderr, "no notification not-a-uuid")
        yield* until(rows, (all) => all[0]?.status === "sent" && all[0].attempts === 1)

        // Through the service: DATA_DIR's owner is the running server; no DATABASE_URL.
        yield* park
        const base = `http://127.0.0.1:${port}`
        writeFileSync(
          join(dataDir, "owner.json"),
          JSON.stringify({ pid: server.pid, startedAt: new Date().toISOString(), nonce: randomUUID(), url: base })
        )
        const viaService = { ...SECRETS, DATA_DIR: dataDir, LOG_LEVEL: "debug" }
        const served = yield* runCli(["notifications", "list", "--status", "failed", "--json"], viaService)
        assert.strictEqual(served.code, 0, served.stderr)
        assert.include(served.stderr, `owned by the service at ${base}`)
        assert.deepStrictEqual(
          JSON.parse(served.stdout).map((view: { id: string; status: string }) => [view.id, view.status]),
          [[row!.id, "failed"]]
        )
        const byStatus = yield* runCli(["notifications", "retry", "--status", "failed", "--json"], viaService)
        assert.strictEqual(byStatus.code, 0, byStatus.stderr)
        assert.deepStrictEqual(JSON.parse(byStatus.stdout), {
          results: [{ id: row!.id, retried: true, status: "pending" }],
          notFound: []
        })
        yield* until(rows, (all) => all[0]?.status === "sent" && all[0].attempts === 1)
        const none = yield* runCli(["notifications", "retry", "--status", "failed"], viaService)
        assert.strictEqual(none.stdout, "")
        assert.match(none.stderr, /^No failed notifications$/m)
      }),
    120_000
  )
})
