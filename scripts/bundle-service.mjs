// Bundles the HTTP service (apps/http/src/main.js and everything of ours and of Effect it loads) for
// `npm start`, which runs apps/http/dist/bundle/main.js. Plain JavaScript: it runs before the
// service, on the pinned Node, and must not need the sources' type stripping itself.
//
//   node scripts/bundle-service.mjs              build now
//   node scripts/bundle-service.mjs --if-stale   build only if the sources or the bundled packages changed
//   node scripts/bundle-service.mjs --out LINK   build for LINK instead of apps/http/dist/bundle (tests)
//
// Why a bundle (issue 16, docs/benchmarks.md): run from its ~640 modules, the service kept 7.6 MiB
// of module source in its heap (Effect's JSDoc included) and paid for every call between modules.
// One bundle without comments or unused code reached /readyz in ~0.85 s instead of ~1.3 s, idled at
// ~92 MiB instead of ~150, peaked under load at ~170 MiB instead of ~200, and answered more requests
// per CPU second. It is not minified: names and lines in a logged stack trace stay readable.
//
// Each build goes into a directory of its own (LINK.<time>), and LINK, a symbolic link, is switched
// to it in one rename: a server already running keeps loading its lazy chunks (the embedded
// database, the /docs page) from the directory it started from, which is kept until three newer
// builds exist.
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { basename, dirname, join, resolve } from "node:path"
import { installedVersion, sourcesFingerprint } from "./bundle-fingerprint.mjs"

const ROOT = join(import.meta.dirname, "..")
const ENTRY = join(ROOT, "apps", "http", "src", "main.js")
const DEFAULT_LINK = join(ROOT, "apps", "http", "dist", "bundle")
// Written last, so a build that did not finish is never taken for a bundle.
const STAMP = ".built"
const BUILDS_KEPT = 3

/**
 * What the bundle is made of besides the packages in it: our sources (every workspace's `src` and
 * its package.json, whose `exports` map decides how it is resolved: read from package.json's
 * `workspaces`, so a new workspace is never left out), and what decides how they are compiled.
 * Until issue 35's twentieth session the workspaces were listed by hand, and packages/api and
 * packages/composition were missing: an edit to them left a stale bundle that `--if-stale` kept.
 * `build` checks that every module of ours it bundled lies under one of these.
 */
const WORKSPACES = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).workspaces
const INPUTS = [
  ...WORKSPACES.flatMap((workspace) => [`${workspace}/src`, `${workspace}/package.json`]),
  "package.json",
  "tsconfig.json",
  // The patches applied to installed packages at install (patch-package): a changed patch is a
  // changed package whose version did not move.
  "patches",
  "scripts/bundle-service.mjs",
  "scripts/bundle-fingerprint.mjs"
].map((path) => join(ROOT, path))

/** Our modules in the bundle that no input covers (a file of ours the fingerprint would not see change). */
const uncovered = (moduleIds) =>
  moduleIds.filter(
    (id) =>
      id.startsWith(ROOT) &&
      !id.includes("/node_modules/") &&
      !INPUTS.some((input) => id === input || id.startsWith(`${input}/`))
  )

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

/** The name of the package a bundled module came from, if it came from node_modules. */
const packageOf = (moduleId) => {
  const at = moduleId.lastIndexOf("/node_modules/")
  if (at === -1) return undefined
  const [scope, name] = moduleId.slice(at + "/node_modules/".length).split("/")
  return scope?.startsWith("@") ? `${scope}/${name}` : scope
}

/** The stamp of the build LINK points to, or undefined when there is none (or half of one). */
const currentStamp = (link) => {
  try {
    return JSON.parse(readFileSync(join(link, STAMP), "utf8"))
  } catch {
    return undefined
  }
}

/** Whether the bundle LINK points to was built from these sources and the packages installed now. */
const isFresh = (link, sources) => {
  const stamp = currentStamp(link)
  return (
    stamp?.sources === sources &&
    typeof stamp.packages === "object" &&
    Object.entries(stamp.packages).every(([name, version]) => installedVersion(ROOT, name) === version)
  )
}

/** Points `link` at the build directory `target` (a sibling) in one rename. */
const pointAt = (link, target) => {
  const temporary = `${link}.link-${process.pid}`
  rmSync(temporary, { force: true })
  symlinkSync(basename(target), temporary)
  // A bundle from before the link was a plain directory, which a rename cannot replace.
  try {
    if (lstatSync(link).isDirectory()) rmSync(link, { recursive: true, force: true })
  } catch (error) {
    if (error?.code !== "ENOENT") throw error
  }
  renameSync(temporary, link)
}

/** Removes all but the newest BUILDS_KEPT builds beside `link` (never the one it points to). */
const pruneBuilds = (link, keep) => {
  const prefix = `${basename(link)}.`
  const builds = readdirSync(dirname(link))
    .filter((name) => name.startsWith(prefix) && /^\d+-\d+$/.test(name.slice(prefix.length)))
    .sort()
    .reverse()
  for (const name of builds.slice(BUILDS_KEPT)) {
    if (name !== basename(keep)) rmSync(join(dirname(link), name), { recursive: true, force: true })
  }
}

const build = async (link, sources) => {
  let rolldown
  try {
    rolldown = await import("rolldown")
  } catch {
    throw new Error(
      `The bundler (rolldown, a devDependency) is not installed, and ${link} is missing or was built ` +
        "from other sources or packages. Build the bundle where dev dependencies are installed " +
        "(`npm ci && npm run bundle`) before pruning them."
    )
  }
  // Named by time (sortable) and process, so concurrent builds never share a directory.
  const target = `${link}.${String(Date.now()).padStart(14, "0")}-${process.pid}`
  mkdirSync(dirname(link), { recursive: true })
  try {
    const output = await rolldown.build({
      input: ENTRY,
      platform: "node",
      external: (id) => !bundled(id),
      // The workspaces' own sources, as the tests and the CLI run them.
      resolve: { conditionNames: ["payments-gaming-source", "node", "import", "default"] },
      logLevel: "warn",
      output: {
        dir: target,
        format: "esm",
        // Unused code and comments dropped (licence notices kept); names and line breaks kept for
        // stack traces.
        minify: "dce-only",
        comments: { legal: true, annotation: false, jsdoc: false },
        entryFileNames: "[name].js",
        chunkFileNames: "[name].js"
      }
    })
    const moduleIds = output.output.flatMap((chunk) => (chunk.type === "chunk" ? Object.keys(chunk.modules) : []))
    const missed = uncovered(moduleIds)
    if (missed.length > 0) {
      throw new Error(
        `The bundle holds sources no input of scripts/bundle-service.mjs covers, so --if-stale would not notice them change: ${missed.map((id) => id.slice(ROOT.length + 1)).join(", ")}`
      )
    }
    // The packages inside, with their versions: installing another version makes the bundle stale.
    const packages = {}
    for (const id of moduleIds) {
      const name = packageOf(id)
      if (name !== undefined) packages[name] ??= installedVersion(ROOT, name)
    }
    const stamp = { sources, packages, builtAt: new Date().toISOString() }
    writeFileSync(join(target, STAMP), `${JSON.stringify(stamp, null, 2)}\n`)
  } catch (error) {
    rmSync(target, { recursive: true, force: true })
    throw error
  }
  pointAt(link, target)
  pruneBuilds(link, target)
}

const args = process.argv.slice(2)
const outAt = args.indexOf("--out")
const link = outAt === -1 ? DEFAULT_LINK : resolve(args[outAt + 1] ?? "")
if (outAt !== -1 && (args[outAt + 1] === undefined || args[outAt + 1].startsWith("--"))) {
  console.error("usage: node scripts/bundle-service.mjs [--if-stale] [--out LINK]")
  process.exit(2)
}
const ifStale = args.includes("--if-stale")
// Read before the build: a source edited while it runs makes the next start build again.
const sources = sourcesFingerprint(ROOT, INPUTS)
if (ifStale && isFresh(link, sources)) process.exit(0)

const started = performance.now()
console.error(`Bundling the service for ${link}${ifStale ? " (missing, or built from other sources)" : ""}…`)
try {
  await build(link, sources)
  console.error(`Bundled in ${Math.round(performance.now() - started)} ms.`)
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
}
