import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const root = join(import.meta.dirname, "..", "..", "..", "..")

/** Every .ts file under `dir`; test files too when `withTests`. */
const typeScriptFiles = (dir: string, withTests: boolean): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory())
      return name === "node_modules" || name === "dist" ? [] : typeScriptFiles(path, withTests)
    return name.endsWith(".ts") && (withTests || !name.endsWith(".test.ts")) ? [path] : []
  })

const sourceFiles = (dir: string) => typeScriptFiles(dir, false)

// Static imports and re-exports, and dynamic `import("…")` too: the CLI loads its commands'
// dependencies lazily, and a lazy import must follow the same direction.
const importsOf = (file: string) =>
  [
    ...readFileSync(file, "utf8").matchAll(
      /(?:(?:^|\n)\s*(?:import|export)[^"']*?from\s+|\bimport\(\s*)["']([^"']+)["']/g
    )
  ].map((match) => match[1] as string)

/** Where every use case is wired (apps/http/src/Layers.ts): the one module of the HTTP app the CLI may import. */
const COMPOSITION_ROOT = "@payments-gaming/composition/Layers"
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

  it("the domain's areas import each other in no cycle, so each can be read (and moved) on its own", () => {
    const areasDir = join(root, "packages/domain/src")
    const areas = readdirSync(areasDir).filter((name) => statSync(join(areasDir, name)).isDirectory())
    const edges = new Map<string, Set<string>>(areas.map((area) => [area, new Set<string>()]))
    for (const area of areas) {
      for (const file of sourceFiles(join(areasDir, area))) {
        for (const specifier of importsOf(file).filter((s) => s.startsWith("."))) {
          const [target] = relative(areasDir, resolve(dirname(file), specifier)).split(sep)
          if (target !== undefined && target !== area && edges.has(target)) edges.get(area)?.add(target)
        }
      }
    }
    // Depth-first search; an edge back to an area on the current path closes a cycle.
    const cycles: Array<string> = []
    const done = new Set<string>()
    const visit = (area: string, path: ReadonlyArray<string>) => {
      if (path.includes(area)) return void cycles.push([...path.slice(path.indexOf(area)), area].join(" → "))
      if (done.has(area)) return
      for (const next of edges.get(area) ?? []) visit(next, [...path, area])
      done.add(area)
    }
    for (const area of areas) visit(area, [])
    assert.deepStrictEqual(cycles, [])
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

/** The workspace package (packages/x, apps/x) or top-level folder (bench, scripts) a file belongs to. */
const ownerOf = (file: string) => {
  const [top, name] = relative(root, file).split(sep)
  return top === "packages" || top === "apps" ? `${top}/${name}` : (top as string)
}

describe("tests belong to their package", () => {
  const everyFile = ["packages", "apps", "bench", "scripts"].flatMap((dir) => typeScriptFiles(join(root, dir), true))

  it("no relative import leaves its package: another package is imported by its name", () => {
    const leaving = everyFile.flatMap((file) =>
      importsOf(file)
        .filter((specifier) => specifier.startsWith("."))
        .filter((specifier) => ownerOf(resolve(dirname(file), specifier)) !== ownerOf(file))
        .map((specifier) => `${relative(root, file)} imports ${specifier}`)
    )
    assert.deepStrictEqual(leaving, [])
    // The rule is not vacuous: relative imports inside a package are the common case.
    assert.isAbove(
      everyFile.filter((file) => importsOf(file).some((specifier) => specifier.startsWith("."))).length,
      100
    )
  })

  it("the domain keeps its tests in packages/domain/test, none beside its sources", () => {
    const besideSources = typeScriptFiles(join(root, "packages/domain/src"), true).filter((file) =>
      file.endsWith(".test.ts")
    )
    assert.deepStrictEqual(
      besideSources.map((file) => relative(root, file)),
      []
    )
  })

  it("no production module imports a package's test support", () => {
    const bad = ["packages/domain/src", "packages/adapters/src", "apps/http/src", "apps/cli/src"].flatMap((dir) =>
      violations(dir, (specifier) => /^@payments-gaming\/[^/]+\/test\//.test(specifier))
    )
    assert.deepStrictEqual(bad, [])
  })

  it("no test lives outside a package: the root has no test folder", () => {
    assert.throws(() => statSync(join(root, "test")))
  })
})
