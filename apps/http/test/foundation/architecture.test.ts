import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const root = join(import.meta.dirname, "..", "..")

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === "node_modules" || name === "dist" ? [] : sourceFiles(path)
    // Tests beside the code may use the test tools; they are not part of the shipped package.
    return name.endsWith(".ts") && !name.endsWith(".test.ts") ? [path] : []
  })

// Static imports and re-exports, and dynamic `import("…")` too: the CLI loads its commands'
// dependencies lazily, and a lazy import must follow the same direction.
const importsOf = (file: string) =>
  [
    ...readFileSync(file, "utf8").matchAll(
      /(?:(?:^|\n)\s*(?:import|export)[^"']*?from\s+|\bimport\(\s*)["']([^"']+)["']/g
    )
  ].map((match) => match[1] as string)

/** Where every use case is wired (apps/http/src/Layers.ts): the one module of the HTTP app the CLI may import. */
const COMPOSITION_ROOT = "@payments-gaming/http/Layers"
/** The contract's paths and header names, which the CLI sends requests with. */
const PATHS = "@payments-gaming/http/Paths"

/** Every (file, import) pair under `dir` whose import `forbidden` rejects. */
const violations = (dir: string, forbidden: (specifier: string) => boolean) =>
  sourceFiles(join(root, dir)).flatMap((file) =>
    importsOf(file)
      .filter(forbidden)
      .map((specifier) => `${relative(root, file)} imports ${specifier}`)
  )

describe("the hexagon's dependency direction", () => {
  it("domain imports only effect and its own modules", () => {
    const bad = violations(
      "packages/domain/src",
      (specifier) => !specifier.startsWith(".") && specifier !== "effect" && !specifier.startsWith("effect/")
    )
    assert.deepStrictEqual(bad, [])
  })

  it("domain reaches no infrastructure through effect either (no SQL, HTTP or platform modules)", () => {
    const bad = violations("packages/domain/src", (specifier) => /^effect\/(sql|http|http-api|cli)/.test(specifier))
    assert.deepStrictEqual(bad, [])
  })

  it("adapters never import an app", () => {
    const bad = violations(
      "packages/adapters/src",
      (specifier) => specifier.startsWith("@payments-gaming/http") || specifier.startsWith("@payments-gaming/cli")
    )
    assert.deepStrictEqual(bad, [])
  })

  it("the HTTP app never imports the CLI; the CLI imports of it only the composition root and the paths, and serve the app", () => {
    assert.deepStrictEqual(
      violations("apps/http/src", (specifier) => specifier.startsWith("@payments-gaming/cli")),
      []
    )
    const cliImportsOfHttp = violations(
      "apps/cli/src",
      (specifier) =>
        specifier.startsWith("@payments-gaming/http") && specifier !== COMPOSITION_ROOT && specifier !== PATHS
    )
    assert.deepStrictEqual(cliImportsOfHttp, ["apps/cli/src/ServeCommand.ts imports @payments-gaming/http"])
    // The paths are plain constants: the CLI loading them loads nothing else of the app.
    assert.deepStrictEqual(importsOf(join(root, "apps/http/src/Paths.ts")), [])
  })

  it("the composition root imports nothing else of the HTTP app, so the CLI loading it loads no server", () => {
    const file = join(root, "apps/http/src/Layers.ts")
    const own = importsOf(file).filter(
      (specifier) => specifier.startsWith(".") || specifier.startsWith("@payments-gaming/http")
    )
    assert.deepStrictEqual(own, [])
    // The rule above is not vacuous: the CLI does take its use cases from the root.
    assert.isNotEmpty(violations("apps/cli/src", (specifier) => specifier === COMPOSITION_ROOT))
  })
})
