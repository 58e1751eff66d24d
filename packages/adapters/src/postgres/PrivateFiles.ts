import { chmodSync, lstatSync, readdirSync, realpathSync } from "node:fs"
import { join } from "node:path"
import { isMainThread } from "node:worker_threads"

/**
 * Everything the process creates from now on is private to its user (directories 0700, files
 * 0600): the embedded database's files hold the rounds' secret seeds, push tokens and raw webhook
 * bodies, and any local user who can read its WAL can win every spin (issue 34). The entry points
 * set it before anything is written; the embedded database sets it again for any other embedder
 * (tests, the bench). A worker thread cannot change the umask, and inherits its process's.
 */
export const restrictUmask = () => {
  if (isMainThread) process.umask(0o077)
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code

/**
 * Takes every group and other permission off `root` and everything under it (0755 becomes 0700,
 * 0666 becomes 0600), not following symbolic links, and returns how many entries it changed. The
 * umask alone is not enough: PGlite gives the files it unpacks on a first start, and a few it
 * writes at every start (`pg_internal.init`), modes of its own (0666, 0644). An entry that vanishes
 * meanwhile (a temporary file) or that belongs to another user (chmod refused) is left as it is.
 */
export const makePrivate = (root: string): number => {
  let changed = 0
  const visit = (path: string) => {
    let stats: ReturnType<typeof lstatSync>
    try {
      stats = lstatSync(path)
    } catch (error) {
      if (codeOf(error) === "ENOENT") return
      throw error
    }
    if (stats.isSymbolicLink()) return
    const mode = stats.mode & 0o7777
    if ((mode & 0o077) !== 0) {
      try {
        chmodSync(path, mode & 0o700)
        changed++
      } catch (error) {
        if (codeOf(error) !== "ENOENT" && codeOf(error) !== "EPERM") throw error
      }
    }
    if (!stats.isDirectory()) return
    let names: Array<string>
    try {
      names = readdirSync(path)
    } catch (error) {
      if (codeOf(error) === "ENOENT") return
      throw error
    }
    for (const name of names) visit(join(path, name))
  }
  // The root itself may be a link (DATA_DIR pointing at a volume): its target is what is repaired;
  // links below it are still not followed.
  let target = root
  try {
    target = realpathSync(root)
  } catch (error) {
    if (codeOf(error) !== "ENOENT") throw error
  }
  visit(target)
  return changed
}
