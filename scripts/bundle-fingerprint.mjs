// What the service's bundle is made of, as one hash (scripts/bundle-service.mjs). Plain JavaScript,
// like the script that uses it.
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"

/** Every file under `path` (or `path` itself), skipping what vanishes or is not a regular file. */
const filesUnder = (path) => {
  let entries
  try {
    entries = readdirSync(path, { withFileTypes: true })
  } catch (error) {
    if (error?.code === "ENOTDIR") return [path]
    if (error?.code === "ENOENT") return []
    throw error
  }
  return entries.flatMap((entry) => {
    const child = join(path, entry.name)
    if (entry.isDirectory()) return filesUnder(child)
    // Editors' lock files are dangling symlinks; sockets and the like are no source either.
    return entry.isFile() ? [child] : []
  })
}

const contentOf = (file) => {
  try {
    return readFileSync(file)
  } catch (error) {
    if (error?.code === "ENOENT") return undefined
    throw error
  }
}

/**
 * The hash of the contents of `inputs` (files, or directories walked whole), named relative to
 * `root`. Contents, not modification times: a checkout that touches files without changing them
 * keeps its bundle, and a deleted file changes the hash.
 */
export const sourcesFingerprint = (root, inputs) => {
  const hash = createHash("sha256")
  const files = inputs.flatMap(filesUnder).sort()
  for (const file of files) {
    const content = contentOf(file)
    if (content === undefined) continue
    hash.update(`${relative(root, file)}\0${content.length}\0`)
    hash.update(content)
  }
  return hash.digest("hex")
}

/** The version of package `name` installed in `root`'s node_modules, or undefined. */
export const installedVersion = (root, name) => {
  const manifest = contentOf(join(root, "node_modules", name, "package.json"))
  return manifest === undefined ? undefined : JSON.parse(manifest.toString("utf8")).version
}

// `node scripts/bundle-fingerprint.mjs ROOT INPUT…` prints the fingerprint (its test runs it so).
if (import.meta.main) {
  const [root, ...inputs] = process.argv.slice(2)
  console.log(sourcesFingerprint(root, inputs))
}
