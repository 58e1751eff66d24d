import { execFile } from "node:child_process"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { promisify } from "node:util"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { withPackLock } from "../support/PackLock.ts"

const run = promisify(execFile)
const domainDir = resolve(import.meta.dirname, "../..")
const effectVersion = JSON.parse(await readFile(join(domainDir, "package.json"), "utf8")).devDependencies.effect

/**
 * What another service gets from `npm pack`: the package is built by its own `prepack` (a fresh
 * clone has no dist/), installs into an empty project beside nothing but `effect`, and runs a use
 * case on the in-memory layers of its `testing` entry, from plain JavaScript with no TypeScript
 * and no source condition.
 */
describe("the domain package, packed", () => {
  let scratch = ""
  let tarball = ""
  let files: ReadonlyArray<string> = []

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "domain-pack-"))
    // Packed from a copy without dist/, as a fresh clone is: prepack must build it.
    const { stdout } = await withPackLock(async () => {
      await rm(join(domainDir, "dist"), { recursive: true, force: true })
      return run("npm", ["pack", "--json", "--pack-destination", scratch], { cwd: domainDir })
    })
    const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
    if (packed === undefined) throw new Error(`npm pack printed no package: ${stdout}`)
    tarball = join(scratch, packed.filename)
    files = packed.files.map((file) => file.path)
    await writeFile(join(scratch, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }))
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball, `effect@${effectVersion}`], {
      cwd: scratch
    })
  }, 120_000)

  afterAll(() => rm(scratch, { recursive: true, force: true }))

  it("ships the built JavaScript and declarations of every area, and no sources or tests", () => {
    for (const entry of ["dist/index.js", "dist/index.d.ts", "dist/testing/index.js", "dist/trivia/index.js"]) {
      assert.include(files, entry)
    }
    assert.isEmpty(files.filter((path) => path.startsWith("src/") || path.startsWith("test/")))
  })

  it("names effect as a peer, so a service shares its own copy", async () => {
    const manifest = JSON.parse(
      await readFile(join(scratch, "node_modules/@payments-gaming/domain/package.json"), "utf8")
    ) as { peerDependencies?: Record<string, string>; dependencies?: Record<string, string> }
    assert.isDefined(manifest.peerDependencies?.effect)
    assert.isUndefined(manifest.dependencies?.effect)
  })

  it("runs a use case against the in-memory layers in an empty project", async () => {
    const script = `
      import { Effect, Layer, Schema } from "effect"
      import { ChallengeInput, PrizeAllocation, TriviaService } from "@payments-gaming/domain/trivia"
      import { TriviaTesting } from "@payments-gaming/domain/testing"
      const input = Schema.decodeUnknownSync(ChallengeInput)({
        title: "Packed", prizeAmount: 100, startTime: "2030-01-01T18:00:00.000Z",
        endTime: "2030-01-01T19:00:00.000Z", questionType: 1, questionCount: 10,
        numberOfWinners: 3, sharingFormula: "EQUAL"
      })
      const program = Effect.gen(function* () {
        const trivia = yield* TriviaService
        const created = yield* trivia.create(input)
        const found = yield* trivia.get(created.id)
        return { id: found.id, title: found.title, shares: PrizeAllocation.splitEqually(10000n, 3).map(String) }
      })
      const result = await Effect.runPromise(
        program.pipe(Effect.provide(TriviaService.layer.pipe(Layer.provide(TriviaTesting.layerMemory))))
      )
      console.log(JSON.stringify(result))
    `
    await writeFile(join(scratch, "main.mjs"), script)
    const { stdout } = await run(process.execPath, ["main.mjs"], { cwd: scratch })
    assert.deepStrictEqual(JSON.parse(stdout), { id: 1, title: "Packed", shares: ["3334", "3333", "3333"] })
  })
})
