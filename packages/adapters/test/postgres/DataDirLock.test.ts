import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as DataDirLock from "../../src/postgres/DataDirLock.ts"

const freshDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "datadir-lock-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const owner = (pid: number) => ({ pid, startedAt: "2026-01-01T00:00:00.000Z", nonce: `n-${pid}` })

describe("DataDirLock", () => {
  it.effect("a damaged (empty) lock file is taken over, not waited on forever", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* freshDir
        writeFileSync(join(dir, DataDirLock.LOCK_FILE), "")
        const lock = yield* DataDirLock.acquire(dir)
        assert.strictEqual(JSON.parse(readFileSync(lock.path, "utf8")).pid, process.pid)
      })
    )
  )

  it.effect("a lock held by a live process is refused, naming it; the file is left as it was", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* freshDir
        const path = join(dir, DataDirLock.LOCK_FILE)
        // The test runner's parent is alive for as long as this test runs.
        writeFileSync(path, JSON.stringify(owner(process.ppid)))
        const exit = yield* Effect.exit(DataDirLock.acquire(dir))
        assert.isTrue(Exit.isFailure(exit))
        assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), `process ${process.ppid}`)
        assert.strictEqual(JSON.parse(readFileSync(path, "utf8")).pid, process.ppid)
      })
    )
  )

  it.effect("advertising rewrites only a lock that is still ours", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* freshDir
        const lock = yield* DataDirLock.acquire(dir)
        yield* lock.advertise("http://127.0.0.1:1")
        assert.strictEqual(JSON.parse(readFileSync(lock.path, "utf8")).url, "http://127.0.0.1:1")
        // Another process's lock in its place (taken over behind our back): left alone.
        writeFileSync(lock.path, JSON.stringify(owner(process.ppid)))
        yield* lock.advertise("http://127.0.0.1:2")
        assert.strictEqual(JSON.parse(readFileSync(lock.path, "utf8")).pid, process.ppid)
        assert.isUndefined(JSON.parse(readFileSync(lock.path, "utf8")).url)
      })
    )
  )
})
