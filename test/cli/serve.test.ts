import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import { Effect } from "effect"
import { freePort, pollUntil, send } from "../support/Http.ts"
import { CLI, spawnNode, tempDir } from "../support/NodeProcess.ts"
import { SECRETS, tokenFor } from "../support/ServerProcess.ts"

// Every other test that starts the server as a process runs the bundle `npm start` runs
// (bundleSetup.ts); `serve` is the one way to run it from its TypeScript sources.
describe("cli serve", () => {
  it.live(
    "serves the HTTP service from its sources: ready, answers a signed-in GET, stops cleanly on SIGTERM",
    () =>
      Effect.gen(function* () {
        const port = yield* freePort
        const server = yield* spawnNode(CLI, ["serve"], {
          ...SECRETS,
          HOST: "127.0.0.1",
          PORT: String(port),
          DATABASE_URL: yield* freshDatabaseUrl,
          DATA_DIR: yield* tempDir("cli-serve-")
        })
        yield* pollUntil(port, "/readyz", (answer) => answer.status === 200, 30_000)
        // The service runs with two malloc arenas, as npm start runs it (docs/operations.md §1).
        const [service] = readFileSync(`/proc/${server.pid}/task/${server.pid}/children`, "utf8").trim().split(" ")
        const environment = readFileSync(`/proc/${service}/environ`, "utf8").split("\0")
        assert.include(environment, "MALLOC_ARENA_MAX=2")
        const wheel = yield* send(port, "/v1/spin-and-win", {
          headers: { authorization: `Bearer ${yield* tokenFor("serve-user")}` }
        })
        assert.strictEqual(wheel.status, 200, wheel.text)
        assert.lengthOf(JSON.parse(wheel.text).data.segments, 8)
        yield* server.kill("SIGTERM")
        assert.deepStrictEqual(yield* server.exit(15_000), { code: 0, signal: null })
      }),
    60_000
  )
})
