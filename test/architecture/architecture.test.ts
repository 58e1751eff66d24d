import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import { assert, describe, it } from "@effect/vitest"

const root = join(import.meta.dirname, "..", "..")

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

/** A specifier naming one of our workspace packages: `@payments-gaming/<name>` or a module of it. */
const ours = (name: string) => (specifier: string) =>
  specifier === `@payments-gaming/${name}` || specifier.startsWith(`@payments-gaming/${name}/`)

/**
 * The adapter modules an app may import itself: edge utilities, none of them a port's adapter nor a
 * layer of the graph (those the apps take from the composition root). Each is here for a reason an
 * app alone has: the CLI mints its admin token, signs a webhook file and finds the service that owns
 * DATA_DIR; the server's main logs its start-up failure, says where its data lives, keeps its rate
 * limits, and maps a lost database to 503.
 */
const APP_ADAPTER_MODULES = new Set([
  "@payments-gaming/adapters/auth/JwtConfig",
  "@payments-gaming/adapters/auth/JwtIssuer",
  "@payments-gaming/adapters/config/ConfigErrorMessage",
  "@payments-gaming/adapters/config/NodeEnv",
  "@payments-gaming/adapters/observability/Logging",
  "@payments-gaming/adapters/postgres/DataDirLock",
  "@payments-gaming/adapters/postgres/DatabaseHealth",
  "@payments-gaming/adapters/postgres/DatabaseUnavailable",
  "@payments-gaming/adapters/postgres/OwnerProcess",
  "@payments-gaming/adapters/ratelimit/RateLimitStore",
  "@payments-gaming/adapters/signature/WebhookSignature"
])

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

  it("the API contract imports only effect and the domain's schemas", () => {
    const bad = violations(
      "packages/api/src",
      (specifier) =>
        !specifier.startsWith(".") &&
        !ours("domain")(specifier) &&
        // effect and its HTTP API modules; no SQL and no CLI.
        !(specifier === "effect" || (specifier.startsWith("effect/") && !/^effect\/(sql|cli)/.test(specifier)))
    )
    assert.deepStrictEqual(bad, [])
  })

  it("adapters import the domain only: never the contract, the composition root or an app", () => {
    const bad = violations("packages/adapters/src", (specifier) =>
      ["api", "composition", "http", "cli"].some((name) => ours(name)(specifier))
    )
    assert.deepStrictEqual(bad, [])
  })

  it("the composition root wires domain and adapters, and imports neither the contract nor an app", () => {
    const bad = violations("packages/composition/src", (specifier) =>
      ["api", "http", "cli"].some((name) => ours(name)(specifier))
    )
    assert.deepStrictEqual(bad, [])
  })

  it("apps import the composition root, the contract and the domain; never another app; adapters only at the edge", () => {
    const bad = ["apps/http/src", "apps/cli/src"].flatMap((dir) =>
      violations(
        dir,
        (specifier) =>
          ours("http")(specifier) ||
          ours("cli")(specifier) ||
          (ours("adapters")(specifier) && !APP_ADAPTER_MODULES.has(specifier))
      )
    )
    assert.deepStrictEqual(bad, [])
    // Not vacuous: both apps take their graph from the root and speak the contract.
    for (const dir of ["apps/http/src", "apps/cli/src"]) {
      assert.isNotEmpty(violations(dir, ours("composition")), dir)
      assert.isNotEmpty(violations(dir, ours("api")), dir)
    }
  })

  it("layers are finished only in the composition root: no app provides a database or a use case's adapters", () => {
    // The graph's own layers (the database, the use cases) are named nowhere else.
    const bad = ["apps/http/src", "apps/cli/src"].flatMap((dir) =>
      violations(dir, (specifier) => /(^|\/)(Layers|Database|PostgresClient)$/.test(specifier))
    )
    assert.deepStrictEqual(bad, [])
  })
})

/** The workspace package (packages/x, apps/x) or top-level folder (test, bench, scripts) a file belongs to. */
const ownerOf = (file: string) => {
  const [top, name] = relative(root, file).split(sep)
  return top === "packages" || top === "apps" ? `${top}/${name}` : (top as string)
}

describe("tests belong to their package", () => {
  const everyFile = ["packages", "apps", "test", "bench", "scripts"].flatMap((dir) =>
    typeScriptFiles(join(root, dir), true)
  )

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
    const bad = [
      "packages/domain/src",
      "packages/api/src",
      "packages/adapters/src",
      "packages/composition/src",
      "apps/http/src",
      "apps/cli/src"
    ].flatMap((dir) => violations(dir, (specifier) => /^@payments-gaming\/[^/]+\/test\//.test(specifier)))
    assert.deepStrictEqual(bad, [])
  })

  it("the suites that cross packages live in test/: HTTP and CLI end to end, the architecture rule, fuzz, faults", () => {
    const suites = readdirSync(join(root, "test")).filter((name) => statSync(join(root, "test", name)).isDirectory())
    for (const suite of ["http", "cli", "architecture", "fuzz", "faults"]) assert.include(suites, suite)
    // A package's own tests never reach into them: test/ depends on the packages, not the reverse.
    const reaching = ["packages", "apps"].flatMap((top) =>
      typeScriptFiles(join(root, top), true)
        .filter((file) => file.split(sep).includes("test"))
        .flatMap((file) =>
          importsOf(file)
            .filter((specifier) => specifier.startsWith("."))
            .filter((specifier) => relative(root, resolve(dirname(file), specifier)).split(sep)[0] === "test")
            .map((specifier) => `${relative(root, file)} imports ${specifier}`)
        )
    )
    assert.deepStrictEqual(reaching, [])
  })
})
