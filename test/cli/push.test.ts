import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { clientFor, freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import { Effect } from "effect"
import { inject } from "vitest"
import { runCli } from "../support/NodeProcess.ts"
import { TEST_ENV } from "../support/TestServer.ts"

describe("payments-gaming push send", () => {
  it.live(
    "sends through the same gateway as the endpoint and records the attempt",
    () =>
      Effect.gen(function* () {
        // On a laptop without PostgreSQL the CLI runs on its own embedded database in DATA_DIR.
        const url = inject("databaseMode") === "postgres" ? yield* freshDatabaseUrl : undefined
        const env = {
          ...TEST_ENV,
          DATA_DIR: mkdtempSync(join(tmpdir(), "pg-cli-")),
          ...(url === undefined ? {} : { DATABASE_URL: url })
        }
        const sent = yield* runCli(
          ["push", "send", "--type", "APNS", "--token", "a1b2c3d4e5f6", "--title", "Hi", "--body", "There", "--json"],
          env
        )
        assert.strictEqual(sent.code, 0, sent.stderr)
        const result = JSON.parse(sent.stdout)
        assert.strictEqual(result.success, true)
        assert.match(result.providerMessageId, /^local-/)

        const bad = yield* runCli(["push", "send", "--type", "WEB", "--token", "t", "--title", "a", "--body", "b"], env)
        assert.strictEqual(bad.code, 2)

        if (url !== undefined) {
          const db = yield* clientFor(url)
          const rows = yield* db<{ tokenType: string }>`SELECT token_type AS "tokenType" FROM push_deliveries`
          assert.deepStrictEqual(rows, [{ tokenType: "APNS" }])
        }
      }).pipe(Effect.scoped),
    60_000
  )
})
