import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs"
import { join, relative } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ROOT, runNode, SERVER } from "../support/NodeProcess.ts"

const BUNDLER = "scripts/bundle-service.mjs"

/** A directory for a bundle inside the checkout (its imports must find node_modules), removed with the scope. */
const bundleDir = Effect.acquireRelease(
  Effect.sync(() => {
    const dist = join(ROOT, "apps", "http", "dist")
    mkdirSync(dist, { recursive: true })
    return mkdtempSync(join(dist, "bundle-check-"))
  }),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const builtAt = (dir: string) => statSync(join(dir, ".built")).mtimeMs

describe("the bundle npm start runs (scripts/bundle-service.mjs)", () => {
  it("the server under test in the process tests is the bundle: our code and Effect inside, other packages imported", () => {
    assert.match(SERVER, /^apps\/http\/dist\/bundle-test-[^/]+\/main\.js$/)
    const dir = join(ROOT, SERVER, "..")
    const code = readdirSync(dir)
      .filter((file) => file.endsWith(".js"))
      .map((file) => readFileSync(join(dir, file), "utf8"))
      .join("\n")
    // One function of ours (ResponseMiddleware.ts) and Effect's fiber loop, under their own names.
    assert.include(code, "const withDeadline = ")
    assert.include(code, "runLoop(effect)")
    // Every import left is of the bundle's own chunks, of Node, or of a package kept in node_modules.
    const imports = [...code.matchAll(/^import .*?from "([^"]+)";?$/gm)].map((match) => match[1]!)
    assert.isNotEmpty(imports)
    for (const specifier of imports) {
      assert.notMatch(specifier, /^(effect|@effect\/|@payments-gaming\/)|\.ts$|^\.\.?\/.*\//, specifier)
    }
  })

  it.live(
    "--if-stale leaves a fresh bundle alone and rebuilds one older than the sources",
    () =>
      Effect.gen(function* () {
        const dir = yield* bundleDir
        const out = relative(ROOT, dir)
        const first = yield* runNode(BUNDLER, ["--out", out], {}, 60_000)
        assert.strictEqual(first.code, 0, first.stderr)
        assert.isTrue(existsSync(join(dir, "main.js")))
        const built = builtAt(dir)

        const fresh = yield* runNode(BUNDLER, ["--if-stale", "--out", out], {}, 60_000)
        assert.strictEqual(fresh.code, 0, fresh.stderr)
        assert.strictEqual(fresh.stderr, "")
        assert.strictEqual(builtAt(dir), built)

        // As if every source had changed since: the stamp goes back to 2001.
        utimesSync(join(dir, ".built"), new Date("2001-01-01"), new Date("2001-01-01"))
        const stale = yield* runNode(BUNDLER, ["--if-stale", "--out", out], {}, 60_000)
        assert.strictEqual(stale.code, 0, stale.stderr)
        assert.include(stale.stderr, "older than its sources")
        assert.isAbove(builtAt(dir), Date.parse("2001-01-02"))
      }),
    120_000
  )
})
