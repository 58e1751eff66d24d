import { randomBytes } from "node:crypto"
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { Context, Effect, Option, Schema } from "effect"

/**
 * One owner per data directory. PGlite has no locking of its own: two processes opening one
 * directory both write it, which loses writes and can corrupt it. So the process that opens the
 * embedded database first creates `DATA_DIR/owner.json` atomically (an exclusive create), holds it
 * for its whole life and removes it when it stops. The file says who owns the directory (pid, start
 * time) and, once the service listens, where it answers, so the CLI can go through the service
 * instead of opening the files itself.
 */
export const LOCK_FILE = "owner.json"

export const Owner = Schema.Struct({
  pid: Schema.Number,
  startedAt: Schema.String,
  /** Identifies this lock exactly (a pid can be reused); checked before the file is removed. */
  nonce: Schema.String,
  /** The service's base URL, once it listens; absent for a CLI command that owns the directory. */
  url: Schema.optional(Schema.String)
})
export type Owner = typeof Owner.Type

const OwnerJson = Schema.fromJsonString(Owner)

export class DataDirInUse extends Schema.TaggedError<DataDirInUse>()("DataDirInUse", {
  dataDir: Schema.String,
  owner: Owner
}) {
  override get message() {
    const where = this.owner.url === undefined ? "" : ` serving ${this.owner.url}`
    return (
      `${this.dataDir} is in use by process ${this.owner.pid}${where} (since ${this.owner.startedAt}): ` +
      `stop it first, or set DATA_DIR to another directory (if no such process is yours, delete ${join(this.dataDir, LOCK_FILE)})`
    )
  }
}

export class DataDirLockError extends Schema.TaggedError<DataDirLockError>()("DataDirLockError", {
  path: Schema.String,
  cause: Schema.Defect()
}) {
  override get message() {
    return `cannot take the lock file ${this.path}`
  }
}

const lockPath = (dataDir: string) => join(resolve(dataDir), LOCK_FILE)

const readOwnerAt = (path: string): Option.Option<Owner> => {
  try {
    return Option.some(Schema.decodeUnknownSync(OwnerJson)(readFileSync(path, "utf8")))
  } catch {
    return Option.none()
  }
}

/** Whether a process with this pid exists (EPERM: it exists but belongs to another user). */
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The live owner of `dataDir`, if any: what the CLI reads to find the running service. */
export const readOwner = (dataDir: string): Option.Option<Owner> =>
  Option.filter(readOwnerAt(lockPath(dataDir)), (owner) => owner.pid !== process.pid && isAlive(owner.pid))

const write = (path: string, owner: Owner) => writeFileSync(path, `${JSON.stringify(owner)}\n`, { mode: 0o600 })

/**
 * Creates the lock file only if none exists, and never half written: the content goes to a private
 * temporary file first, then is linked into place (link fails on an existing name). A reader thus
 * always sees a whole lock, and an unreadable one can only be a damaged file, never one in progress.
 */
const createExclusive = (path: string, owner: Owner): boolean => {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.new`
  write(temporary, owner)
  try {
    linkSync(temporary, path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  } finally {
    rmSync(temporary, { force: true })
  }
}

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

type Attempt =
  | { readonly _tag: "Owned" }
  | { readonly _tag: "Held"; readonly owner: Owner }
  /** `stale` is undefined when the lock taken over could not be read. */
  | { readonly _tag: "TookOver"; readonly stale: Owner | undefined }
  | { readonly _tag: "Retry" }

/**
 * One attempt to own the lock. A lock whose process is gone, or that cannot be read (damaged: the
 * create above never leaves one half written), is moved aside under a private name (rename is
 * atomic, so of two processes taking over the same stale lock only one moves it) and checked: if
 * what was moved is not, byte for byte, the lock judged stale a moment ago, another process has
 * already taken over, and its fresh lock is put back.
 */
const attempt = (path: string, mine: Owner): Attempt => {
  if (createExclusive(path, mine)) return { _tag: "Owned" }
  const text = readText(path)
  if (text === undefined) return { _tag: "Retry" }
  const current = Option.getOrUndefined(readOwnerAt(path))
  if (current !== undefined && isAlive(current.pid) && current.pid !== process.pid) {
    return { _tag: "Held", owner: current }
  }
  const aside = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.stale`
  try {
    renameSync(path, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { _tag: "Retry" }
    throw error
  }
  if (readText(aside) !== text) {
    try {
      linkSync(aside, path)
    } catch {
      // Yet another process created a lock meanwhile: it is the owner now.
    }
    rmSync(aside, { force: true })
    return { _tag: "Retry" }
  }
  rmSync(aside, { force: true })
  return { _tag: "TookOver", stale: current }
}

/** The lock this process holds on its data directory; `advertise` records where the service answers. */
export interface DataDirLock {
  readonly path: string
  readonly advertise: (url: string) => Effect.Effect<void>
}

/**
 * The lock held by this process, if it runs on the embedded database. A process on `DATABASE_URL`
 * holds none, and advertising is then a no-op.
 */
export const HeldDataDirLock = Context.Reference<Option.Option<DataDirLock>>(
  "@payments-gaming/adapters/postgres/HeldDataDirLock",
  { defaultValue: () => Option.none() }
)

/**
 * Takes the lock on `dataDir` for the scope's life, or fails with `DataDirInUse` naming the live
 * owner. Released (only if still ours) when the scope closes; after a crash the next process finds
 * the pid gone and takes the lock over, with a log line.
 */
export const acquire = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const path = lockPath(dataDir)
      let mine: Owner = {
        pid: process.pid,
        startedAt: new Date().toISOString(),
        nonce: randomBytes(12).toString("hex")
      }
      for (let tries = 0; ; tries++) {
        const result = yield* Effect.try({
          try: () => {
            mkdirSync(resolve(dataDir), { recursive: true, mode: 0o700 })
            return attempt(path, mine)
          },
          catch: (cause) => new DataDirLockError({ path, cause })
        })
        if (result._tag === "Owned") break
        if (result._tag === "Held") return yield* new DataDirInUse({ dataDir: resolve(dataDir), owner: result.owner })
        if (result._tag === "TookOver") {
          yield* Effect.logWarning(
            result.stale === undefined
              ? `Took over the lock on ${resolve(dataDir)}, whose lock file could not be read`
              : `Took over the lock on ${resolve(dataDir)} from process ${result.stale.pid} (started ${result.stale.startedAt}), which is gone`
          )
        }
        if (tries > 20) return yield* new DataDirLockError({ path, cause: new Error("the lock kept changing hands") })
        if (result._tag === "Retry") yield* Effect.sleep(25)
      }
      const lock: DataDirLock = {
        path,
        advertise: (url) =>
          Effect.sync(() => {
            // Only a lock that is still ours is rewritten (never one another process took over).
            if (Option.getOrUndefined(readOwnerAt(path))?.nonce !== mine.nonce) return
            mine = { ...mine, url }
            // Rewritten in place under a temporary name, so a reader never sees half a file.
            const temporary = `${path}.${process.pid}.tmp`
            write(temporary, mine)
            renameSync(temporary, path)
          }).pipe(
            Effect.catchCause((cause) =>
              Effect.logWarning("Could not record the service's URL in the lock file", cause)
            )
          )
      }
      return { lock, nonce: () => mine.nonce }
    }),
    ({ lock, nonce }) =>
      Effect.sync(() => {
        const current = readOwnerAt(lock.path)
        if (Option.isSome(current) && current.value.nonce === nonce()) rmSync(lock.path, { force: true })
      })
  ).pipe(Effect.map(({ lock }) => lock))
