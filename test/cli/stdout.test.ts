import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe } from "@effect/vitest"
import { signWebhook } from "@payments-gaming/adapters/test/support/TestSecrets"
import { Effect } from "effect"
import { devSecret, LOG_LINE, linesAt } from "../support/EmbeddedService.ts"
import { itInTempDir, runCli } from "../support/NodeProcess.ts"

// A script reads the CLI's stdout as its answer (TOKEN=$(… token mint …)), so nothing else may be
// written there: log lines go to stderr, in the server's format.

const JWT_LINE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\n$/

/** Every stderr line is a log line in the server's pretty format, or the continuation of one. */
const assertPrettyLog = (stderr: string) => {
  for (const line of stderr.split("\n")) {
    if (line !== "") assert.match(line, new RegExp(`${LOG_LINE.source}|^\\s`), `not a log line: ${line}`)
  }
}

describe("the CLI's stdout carries only its answer", () => {
  itInTempDir(
    "token mint prints one JWT line and webhook sign one hex line; the first-run warning goes to stderr as a log line",
    "cli-stdout-",
    (dataDir) =>
      Effect.gen(function* () {
        // A fresh DATA_DIR: the secrets are generated now, which the CLI warns about.
        const minted = yield* runCli(["token", "mint", "--sub", "user-1"], { DATA_DIR: dataDir })
        assert.strictEqual(minted.code, 0, minted.stderr)
        assert.match(minted.stdout, JWT_LINE)
        assertPrettyLog(minted.stderr)
        const warnings = linesAt(minted.stderr, "WARN")
        assert.lengthOf(warnings, 1, minted.stderr)
        assert.include(warnings[0], "Generated development secrets")

        const payload = join(dataDir, "payload.json")
        writeFileSync(payload, '{"event":"ping"}\n')
        const signed = yield* runCli(["webhook", "sign", payload], { DATA_DIR: dataDir, LOG_LEVEL: "debug" })
        assert.strictEqual(signed.code, 0, signed.stderr)
        const current = devSecret(dataDir, "WEBHOOK_SECRETS").split(",")[0] as string
        const expected = signWebhook(readFileSync(payload), current)
        assert.strictEqual(signed.stdout, `${expected}\n`)
        // At debug level there is more to say (the secrets file used), all of it on stderr.
        assert.isNotEmpty(signed.stderr)
        assertPrettyLog(signed.stderr)
      }),
    120_000
  )

  itInTempDir(
    "with LOG_FORMAT=json the log lines on stderr are JSON, as the server's, and stdout is still one JWT line",
    "cli-stdout-json-",
    (dataDir) =>
      Effect.gen(function* () {
        const minted = yield* runCli(["token", "mint", "--sub", "user-1"], { DATA_DIR: dataDir, LOG_FORMAT: "json" })
        assert.strictEqual(minted.code, 0, minted.stderr)
        assert.match(minted.stdout, JWT_LINE)
        const lines = minted.stderr.split("\n").filter((line) => line !== "")
        assert.lengthOf(lines, 1, minted.stderr)
        const entry = JSON.parse(lines[0] as string)
        assert.strictEqual(entry.level, "WARN")
        assert.include(entry.message, "Generated development secrets")
        assert.match(entry.timestamp, /^\d{4}-\d{2}-\d{2}T/)
      }),
    120_000
  )
})
