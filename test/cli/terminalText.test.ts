import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import { field, REPLACEMENT, terminalSafe } from "@payments-gaming/cli/TerminalText"
import { credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect } from "effect"
import { inject } from "vitest"
import { runCli, tempDir } from "../support/NodeProcess.ts"
import { deliver, linkAccount, SECRETS, startServer } from "../support/ServerProcess.ts"

const postgres = inject("databaseMode") === "postgres"

// What a hostile provider could put in a reference: a colour, a cursor move and clear, a window
// title (OSC … BEL), a C1 CSI, DEL, a right-to-left override, a tab and a line break.
const HOSTILE = "VA-\u001b[31mred\u001b[2J\u001b[H\u001b]0;pwned\u0007\u009b1m\u007f\u202etxt.exe\tcol\nline"
// Any of them reaching a terminal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

describe("terminal text (issue 34, finding 10)", () => {
  it("terminalSafe replaces C0 and C1 controls, DEL and bidi overrides, keeping tabs, line feeds and any script", () => {
    assert.strictEqual(
      terminalSafe("a\u001b[31mb\u009bc\u007fd\u0007e\u202ef"),
      `a${REPLACEMENT}[31mb${REPLACEMENT}c${REPLACEMENT}d${REPLACEMENT}e${REPLACEMENT}f`
    )
    assert.strictEqual(terminalSafe("id\tref\nnext"), "id\tref\nnext")
    assert.strictEqual(terminalSafe("Adé Ọ̀kàfọ̀ محمد 😀"), "Adé Ọ̀kàfọ̀ محمد 😀")
    assert.notMatch(terminalSafe(HOSTILE), CONTROL)
    // A field may add neither a column nor a line.
    assert.strictEqual(field("a\tb\nc\rd"), `a${REPLACEMENT}b${REPLACEMENT}c${REPLACEMENT}d`)
  })

  it("every text printer of the CLI goes through printText: Console.log prints JSON only", () => {
    const dir = join(import.meta.dirname, "../../apps/cli/src")
    const offenders = readdirSync(dir)
      .filter((name) => name.endsWith(".ts") && name !== "TerminalText.ts")
      .flatMap((name) =>
        [...readFileSync(join(dir, name), "utf8").matchAll(/Console\.(?:log|info|warn|error)\(\s*([^\n]*)/g)]
          .filter((match) => !(match[1] ?? "").startsWith("JSON.stringify("))
          .map((match) => `${name}: ${match[0]}`)
      )
    assert.deepStrictEqual(offenders, [])
  })

  it.live.runIf(postgres)(
    "a reference full of escape sequences reaches webhook list and wallet statement text without one; --json keeps it exact",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabaseUrl
        const dataDir = yield* tempDir("terminal-text-")
        const env = { ...SECRETS, DATA_DIR: dataDir, DATABASE_URL: url }
        const { port } = yield* startServer(env)
        const userId = unique("holder")
        const account = String(Math.floor(1e9 + Math.random() * 8e9))
        yield* linkAccount(port, account, userId)
        const reference = `${HOSTILE}-${unique("x")}`
        const body = JSON.stringify(
          credit({ reference, accountNumber: account, amount: "10.00", fee: "0", settled: 10 })
        )
        assert.strictEqual((yield* deliver(port, body)).status, 200)

        for (const args of [
          ["webhook", "list"],
          ["wallet", "statement", "--user", userId],
          ["wallet", "statement", "--user", userId, "--csv"]
        ]) {
          const run = yield* runCli(args, env)
          assert.strictEqual(run.code, 0, run.stderr)
          assert.include(run.stdout, "VA-")
          assert.notMatch(run.stdout, CONTROL, args.join(" "))
          // The reference stays on its own line and in its own column.
          const line = run.stdout.split("\n").find((text) => text.includes("VA-"))!
          assert.include(line, `${REPLACEMENT}[31mred`)
          assert.include(line, "line-")
        }
        const json = yield* runCli(["wallet", "statement", "--user", userId, "--json"], env)
        assert.strictEqual(JSON.parse(json.stdout).items[0].reference, reference)
      }),
    120_000
  )
})
