import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ROOT, runNode, SERVER } from "../../support/NodeProcess.ts"

const BUNDLER = "scripts/bundle-service.mjs"

/** A directory for bundles inside the checkout (their imports must find node_modules), removed with the scope. */
const bundleDir = Effect.acquireRelease(
  Effect.sync(() => {
    const dist = join(ROOT, "apps", "http", "dist")
    mkdirSync(dist, { recursive: true })
    return mkdtempSync(join(dist, "bundle-check-"))
  }),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const bundle = (link: string, ...flags: Array<string>) => runNode(BUNDLER, [...flags, "--out", link], {}, 60_000)
const stampOf = (link: string) => JSON.parse(readFileSync(join(link, ".built"), "utf8"))

describe("the bundle npm start runs (scripts/bundle-service.mjs)", () => {
  it("the server under test in the process tests is the bundle: our code and Effect inside, other packages imported", () => {
    assert.match(SERVER, /^apps\/http\/dist\/bundle-test-[^/]+\/bundle\/main\.js$/)
    const dir = join(ROOT, SERVER, "..")
    const code = readdirSync(dir)
      .filter((file) => file.endsWith(".js"))
      .map((file) => readFileSync(join(dir, file), "utf8"))
      .join("\n")
    // One function of ours (ResponseMiddleware.ts) and Effect's fiber loop, under their own names.
    assert.include(code, "const withDeadline = ")
    assert.include(code, "runLoop(effect)")
    // Every import left, static or dynamic, is of the bundle's own chunks, of Node, or of a package
    // kept in node_modules.
    const imports = [...code.matchAll(/(?:^import .*?from |\bimport\()"([^"]+)"/gm)].map((match) => match[1]!)
    assert.isNotEmpty(imports)
    for (const specifier of imports) {
      assert.notMatch(specifier, /^(effect|@effect\/|@payments-gaming\/)|\.ts$|^\.\.?\/.*\//, specifier)
    }
    // The stamp names the bundled packages with their installed versions.
    const stamp = stampOf(dir)
    assert.match(stamp.sources, /^[0-9a-f]{64}$/)
    assert.strictEqual(
      stamp.packages.effect,
      JSON.parse(readFileSync(join(ROOT, "node_modules/effect/package.json"), "utf8")).version
    )
  })

  it.live(
    "--if-stale keeps a bundle built from these sources and packages, and rebuilds one that is not",
    () =>
      Effect.gen(function* () {
        const link = join(yield* bundleDir, "bundle")
        const first = yield* bundle(link)
        assert.strictEqual(first.code, 0, first.stderr)
        assert.isTrue(existsSync(join(link, "main.js")))
        const firstBuild = readlinkSync(link)

        const fresh = yield* bundle(link, "--if-stale")
        assert.strictEqual(fresh.code, 0, fresh.stderr)
        assert.strictEqual(fresh.stderr, "")
        assert.strictEqual(readlinkSync(link), firstBuild)

        // Built from other sources: a new build, the link switched to it, the first one kept
        // (a server started from it may still load its lazy chunks).
        const stamp = stampOf(link)
        writeFileSync(join(link, ".built"), JSON.stringify({ ...stamp, sources: "0".repeat(64) }))
        const otherSources = yield* bundle(link, "--if-stale")
        assert.strictEqual(otherSources.code, 0, otherSources.stderr)
        assert.include(otherSources.stderr, "built from other sources")
        assert.notStrictEqual(readlinkSync(link), firstBuild)
        assert.isTrue(existsSync(join(link, "..", firstBuild, "main.js")))

        // With another version of a bundled package installed since: rebuilt too.
        writeFileSync(
          join(link, ".built"),
          JSON.stringify({ ...stamp, packages: { ...stamp.packages, effect: "0.0.1" } })
        )
        const otherPackages = yield* bundle(link, "--if-stale")
        assert.strictEqual(otherPackages.code, 0, otherPackages.stderr)
        assert.include(otherPackages.stderr, "Bundled in")

        // Two more builds: only the newest three are kept.
        for (let build = 0; build < 2; build++) assert.strictEqual((yield* bundle(link)).code, 0)
        const builds = readdirSync(join(link, "..")).filter((name) => name.startsWith("bundle."))
        assert.strictEqual(builds.length, 3, builds.join(", "))
        assert.notInclude(builds, firstBuild)
      }),
    120_000
  )

  it.live(
    "the fingerprint follows contents, not times, and notices a deleted file",
    () =>
      Effect.gen(function* () {
        const dir = yield* Effect.acquireRelease(
          Effect.sync(() => mkdtempSync(join(tmpdir(), "fingerprint-"))),
          (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
        )
        mkdirSync(join(dir, "src"))
        writeFileSync(join(dir, "src", "a.ts"), "export const a = 1\n")
        writeFileSync(join(dir, "src", "b.ts"), "export const b = 2\n")
        const fingerprint = Effect.map(
          runNode("scripts/bundle-fingerprint.mjs", [dir, join(dir, "src"), join(dir, "missing.json")], {}),
          (result) => {
            assert.strictEqual(result.code, 0, result.stderr)
            return result.stdout.trim()
          }
        )
        const first = yield* fingerprint
        assert.match(first, /^[0-9a-f]{64}$/)
        writeFileSync(join(dir, "src", "a.ts"), "export const a = 1\n")
        assert.strictEqual(yield* fingerprint, first)
        writeFileSync(join(dir, "src", "a.ts"), "export const a = 3\n")
        const edited = yield* fingerprint
        assert.notStrictEqual(edited, first)
        rmSync(join(dir, "src", "b.ts"))
        assert.notStrictEqual(yield* fingerprint, edited)
      }),
    30_000
  )
})
