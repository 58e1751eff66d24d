// Bundles the HTTP service (apps/http/src/main.js and everything of ours and of Effect it loads) into
// apps/http/dist/bundle, which `npm start` runs. Plain JavaScript: it runs before the service, on the
// pinned Node, and must not need the sources' type stripping itself.
//
//   node scripts/bundle-service.mjs              build now
//   node scripts/bundle-service.mjs --if-stale   build only if a source is newer than the bundle
//   node scripts/bundle-service.mjs --out DIR    build into DIR (the bundle test)
//
// Why a bundle (issue 16, docs/benchmarks.md): run from its ~640 modules, the service kept 7.6 MiB
// of module source in its heap (Effect's JSDoc included) and resolved each module at start. One
// bundle without comments or unused code reached /readyz in ~0.85 s instead of ~1.3 s, idled at
// ~95 MiB instead of ~150 and peaked at ~170 MiB under load instead of ~200, and answered more
// requests per CPU second (calls between modules become calls within one). It is not minified:
// names and lines in a logged stack trace stay readable.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"

const ROOT = join(import.meta.dirname, "..")
const ENTRY = join(ROOT, "apps", "http", "src", "main.js")
export const BUNDLE_DIR = join(ROOT, "apps", "http", "dist", "bundle")
// Written last, so a bundle whose build did not finish is never taken for a fresh one.
const STAMP = ".built"

/** What the bundle is made of: a change to any of these makes it stale. */
const INPUTS = [
  join(ROOT, "apps", "http", "src"),
  join(ROOT, "packages", "domain", "src"),
  join(ROOT, "packages", "adapters", "src"),
  join(ROOT, "package-lock.json"),
  join(ROOT, "scripts", "bundle-service.mjs")
]

const newestChange = (path) => {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestChange(join(path, entry)))
  return newest
}

const isFresh = (dir) => {
  const stamp = join(dir, STAMP)
  if (!existsSync(stamp)) return false
  const built = statSync(stamp).mtimeMs
  return INPUTS.every((input) => newestChange(input) < built)
}

// Ours and Effect are bundled. Every other package stays an import from node_modules: some find
// files beside their code (PGlite's WebAssembly, firebase-admin's and node-apn's CommonJS trees),
// and most load only when their feature is configured.
const bundled = (id) =>
  id.startsWith(".") ||
  id.startsWith("/") ||
  id.startsWith("@payments-gaming/") ||
  id === "effect" ||
  id.startsWith("effect/") ||
  id.startsWith("@effect/")

const build = async (out) => {
  let rolldown
  try {
    rolldown = await import("rolldown")
  } catch {
    throw new Error(
      `The bundler (rolldown, a devDependency) is not installed, and ${out} is missing or older than ` +
        "the sources. Build the bundle where dev dependencies are installed (`npm ci && npm run bundle`) " +
        "before pruning them."
    )
  }
  // Built beside its destination and moved into place whole: a failed build leaves the old bundle.
  const staging = `${out}.building-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  try {
    await rolldown.build({
      input: ENTRY,
      platform: "node",
      external: (id) => !bundled(id),
      // The workspaces' own sources, as the tests and the CLI run them.
      resolve: { conditionNames: ["payments-gaming-source", "node", "import", "default"] },
      logLevel: "warn",
      output: {
        dir: staging,
        format: "esm",
        // Unused code and comments dropped (licence notices kept); names and line breaks kept for
        // stack traces.
        minify: "dce-only",
        comments: { legal: true, annotation: false, jsdoc: false },
        entryFileNames: "[name].js",
        chunkFileNames: "[name].js"
      }
    })
    writeFileSync(join(staging, STAMP), `${new Date().toISOString()}\n`)
    mkdirSync(dirname(out), { recursive: true })
    rmSync(out, { recursive: true, force: true })
    try {
      renameSync(staging, out)
    } catch (error) {
      // Another start built the same sources at the same moment and moved its bundle in first.
      if (error?.code !== "ENOTEMPTY" && error?.code !== "EEXIST") throw error
    }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

const args = process.argv.slice(2)
const outAt = args.indexOf("--out")
const out = outAt === -1 ? BUNDLE_DIR : args[outAt + 1]
if (out === undefined || out.startsWith("--")) {
  console.error("usage: node scripts/bundle-service.mjs [--if-stale] [--out DIR]")
  process.exit(2)
}
const ifStale = args.includes("--if-stale")
if (ifStale && isFresh(out)) process.exit(0)

const started = performance.now()
console.error(`Bundling the service into ${out}${ifStale ? " (missing, or older than its sources)" : ""}…`)
try {
  await build(out)
  console.error(`Bundled in ${Math.round(performance.now() - started)} ms.`)
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
}
