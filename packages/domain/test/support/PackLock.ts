import { mkdir, rmdir } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"

const LOCK = join(tmpdir(), "payments-gaming-domain-pack.lock")

/**
 * Runs `pack` while no other test file packs the domain: `npm pack` rebuilds its dist/ in place
 * (prepack), and the domain's and the API's pack tests, run in parallel by vitest, would otherwise
 * delete each other's half-built files. A directory is the lock: creating it is atomic. A lock left
 * by a killed run is taken over after two minutes.
 */
export const withPackLock = async <A>(pack: () => Promise<A>): Promise<A> => {
  const deadline = Date.now() + 120_000
  for (;;) {
    try {
      await mkdir(LOCK)
      break
    } catch {
      if (Date.now() > deadline) break
      await sleep(200)
    }
  }
  try {
    return await pack()
  } finally {
    await rmdir(LOCK).catch(() => undefined)
  }
}
