import { execFile, execFileSync } from "node:child_process"
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { promisify } from "node:util"
import { afterAll, assert, describe, it } from "@effect/vitest"

const root = resolve(import.meta.dirname, "../..")
const bin = join(root, "node_modules/.bin/payments-gaming")
const run = promisify(execFile)

/** The first `node` on the machine's PATH, outside this project, when it is older than 24. */
const olderNode = (() => {
  const dirs = (process.env.PATH ?? "").split(":").filter((dir) => dir !== "" && !dir.startsWith(root))
  for (const dir of dirs) {
    try {
      const version = execFileSync(join(dir, "node"), ["--version"], { encoding: "utf8" }).trim()
      return Number(version.slice(1).split(".")[0]) < 24 ? { dir, version } : undefined
    } catch {}
  }
  return undefined
})()

/** Runs the installed bin as a shell would, with PATH naming only the older Node's folder. */
const runBin = (binPath: string, args: ReadonlyArray<string>, dataDir: string) =>
  run(binPath, [...args], {
    env: { PATH: `${olderNode?.dir}:/usr/bin:/bin`, DATA_DIR: dataDir, LOG_LEVEL: "error" }
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr
    })
  )

// The machine's own Node (20 on this project's machines) is what a shell finds first for the bin.
describe.skipIf(olderNode === undefined)(`the payments-gaming bin on an older Node (${olderNode?.version})`, () => {
  const scratch = mkdtempSync(join(tmpdir(), "cli-bin-"))
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  it("hands the run to the pinned Node: the command works, with its output and exit code", async () => {
    const minted = await runBin(bin, ["token", "mint", "--sub", "u1"], join(scratch, "data"))
    assert.strictEqual(minted.code, 0, minted.stderr)
    assert.match(minted.stdout.trim(), /^[\w-]+\.[\w-]+\.[\w-]+$/)
    const bad = await runBin(bin, ["tokn"], join(scratch, "data"))
    assert.strictEqual(bad.code, 2)
    assert.notInclude(bad.stderr, "SyntaxError")
  })

  it("without a pinned Node beside it, refuses in one line", async () => {
    // A copy of the launcher where no `node` package can be resolved from.
    const lonely = join(scratch, "lonely")
    cpSync(join(root, "apps/cli/src/main.js"), join(lonely, "main.js"))
    writeFileSync(join(lonely, "package.json"), JSON.stringify({ type: "module" }))
    symlinkSync(join(lonely, "main.js"), join(lonely, "payments-gaming"))
    const refused = await runBin(join(lonely, "payments-gaming"), ["--help"], join(scratch, "data"))
    assert.strictEqual(refused.code, 1)
    assert.strictEqual(refused.stdout, "")
    assert.match(refused.stderr, /^payments-gaming needs Node 24 or newer, and this is Node 2\d\.[\d.]+: [^\n]+\n$/)
  })
})
