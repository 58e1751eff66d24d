import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { join, relative } from "node:path"
import type { TestProject } from "vitest/node"

const ROOT = join(import.meta.dirname, "..", "..")

/**
 * Builds the bundle `npm start` runs (scripts/bundle-service.mjs) once per test run, from the
 * sources under test, so the tests that start the server as a process (faults, lifecycle,
 * restarts, production start-up) run what production runs. It is built inside the checkout, where
 * its imports of other packages find node_modules, and removed at the end of the run. Under
 * `vitest --watch` it is built again before each rerun, so a rerun never tests stale code.
 */
export default function setup(project: TestProject) {
  const dist = join(ROOT, "apps", "http", "dist")
  mkdirSync(dist, { recursive: true })
  const dir = mkdtempSync(join(dist, "bundle-test-"))
  const link = join(dir, "bundle")
  const build = (): void => {
    execFileSync(process.execPath, [join(ROOT, "scripts", "bundle-service.mjs"), "--if-stale", "--out", link], {
      stdio: "inherit"
    })
  }
  build()
  project.onTestsRerun(build)
  project.provide("serverBundle", join(relative(ROOT, link), "main.js"))
  return () => rmSync(dir, { recursive: true, force: true })
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The service's bundle built for this run (a link to its build), relative to the repository root. */
    serverBundle: string
  }
}
