import { assert, describe, it } from "@effect/vitest"
import { TEST_SECRETS } from "@payments-gaming/adapters/test/support/TestSecrets"
import { Effect } from "effect"
import * as Jose from "jose"
import { runCli, tempDir } from "../support/NodeProcess.ts"

const SECRET = TEST_SECRETS.AUTH_JWT_SECRET

/** `token mint` through the real CLI, with the secret configured. */
const mint = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const dataDir = yield* tempDir("token-command-")
    return yield* runCli(["token", "mint", "--sub", "u1", ...args], {
      DATA_DIR: dataDir,
      AUTH_JWT_SECRET: SECRET,
      ...env
    })
  })

/** The lifetime (`exp - iat`) of a token the CLI printed, after checking its signature. */
const lifetimeOf = (stdout: string) =>
  Effect.promise(async () => {
    const { payload } = await Jose.jwtVerify(stdout.trim(), new TextEncoder().encode(SECRET))
    return (payload.exp ?? 0) - (payload.iat ?? 0)
  })

describe("token mint stays within AUTH_MAX_TOKEN_TTL", () => {
  it.live(
    "a --ttl beyond the maximum is bad usage (exit 2) with a clear line; the maximum itself is minted",
    () =>
      Effect.gen(function* () {
        const [beyond, atMax] = yield* Effect.all([mint(["--ttl", "25h"]), mint(["--ttl", "24h"])], {
          concurrency: 2
        })
        assert.strictEqual(beyond.code, 2, beyond.stderr)
        assert.strictEqual(beyond.stdout, "", "no token printed")
        assert.match(beyond.stderr, /--ttl 25h is longer than AUTH_MAX_TOKEN_TTL/)
        assert.strictEqual(atMax.code, 0, atMax.stderr)
        assert.strictEqual(yield* lifetimeOf(atMax.stdout), 24 * 3600)
      }),
    60_000
  )

  it.live(
    "a configured maximum shorter than an hour shortens the default lifetime and bounds --ttl",
    () =>
      Effect.gen(function* () {
        const env = { AUTH_MAX_TOKEN_TTL: "15 minutes" }
        const [byDefault, beyond] = yield* Effect.all([mint([], env), mint(["--ttl", "1h"], env)], {
          concurrency: 2
        })
        assert.strictEqual(byDefault.code, 0, byDefault.stderr)
        assert.strictEqual(yield* lifetimeOf(byDefault.stdout), 900)
        assert.strictEqual(beyond.code, 2, beyond.stderr)
        assert.match(beyond.stderr, /--ttl 1h is longer than AUTH_MAX_TOKEN_TTL/)
      }),
    60_000
  )

  it.live(
    "without --ttl and the default maximum, a token lives an hour",
    () =>
      Effect.gen(function* () {
        const result = yield* mint([])
        assert.strictEqual(result.code, 0, result.stderr)
        assert.strictEqual(yield* lifetimeOf(result.stdout), 3600)
      }),
    60_000
  )
})
