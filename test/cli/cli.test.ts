import { existsSync } from "node:fs"
import { join } from "node:path"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { migrations } from "@payments-gaming/adapters/postgres/migrations/index"
import { freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import { TEST_SECRETS } from "@payments-gaming/adapters/test/support/TestSecrets"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as Jose from "jose"
import { devSecret } from "../support/EmbeddedService.ts"
import { runCli, tempDir } from "../support/NodeProcess.ts"

const REGISTERED = Object.keys(migrations).sort()
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/

/** A fresh database (dropped with the scope) and a client on it to inspect what the CLI did. */
const freshDatabase = Effect.gen(function* () {
  const url = yield* freshDatabaseUrl
  const sql = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
  return { url, sql }
}).pipe(Effect.provide(Reactivity.layer))

describe("CLI usage", () => {
  it.live("--help exits 0 and lists serve, db and token", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDir("cli-help-")
      const result = yield* runCli(["--help"], { DATA_DIR: dataDir })
      assert.strictEqual(result.code, 0, result.stderr)
      for (const command of ["serve", "db", "token"]) assert.match(result.stdout, new RegExp(`^\\s+${command}\\s`, "m"))
    })
  )

  it.live(
    "an unknown subcommand, a missing --sub and a bad --ttl exit 2, saying so in a line or two on stderr only",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* tempDir("cli-usage-")
        const results = yield* Effect.all(
          [
            runCli(["frobnicate"], { DATA_DIR: dataDir }),
            runCli(["token", "mint"], { DATA_DIR: dataDir }),
            runCli(["token", "mint", "--sub", "u1", "--ttl", "banana"], { DATA_DIR: dataDir }),
            runCli(["token", "frobnicate"], { DATA_DIR: dataDir })
          ],
          { concurrency: "unbounded" }
        )
        const [unknown, missingSub, badTtl, unknownNested] = results
        assert.strictEqual(unknown?.code, 2, unknown?.stderr)
        assert.include(unknown?.stderr, "frobnicate")
        assert.strictEqual(missingSub?.code, 2, missingSub?.stderr)
        assert.include(missingSub?.stderr, "--sub")
        assert.strictEqual(badTtl?.code, 2, badTtl?.stderr)
        assert.include(badTtl?.stderr, "banana")
        assert.notMatch(badTtl?.stdout ?? "", JWT, "no token is printed on bad usage")
        assert.strictEqual(unknownNested?.code, 2, unknownNested?.stderr)
        for (const result of results) {
          // A script capturing stdout gets nothing; the reader of stderr gets the problem, not the help.
          assert.strictEqual(result.stdout, "", result.stdout)
          // (Log lines, such as the announcement of generated development secrets, start with a time.)
          const said = result.stderr.split("\n").filter((line) => line !== "" && !line.startsWith("["))
          assert.isAtMost(said.length, 2, result.stderr)
          assert.match(said[0] ?? "", /^error: /, result.stderr)
        }
        assert.include(missingSub?.stderr, "Run 'payments-gaming token mint --help' for usage.")
        assert.include(unknown?.stderr, "Run 'payments-gaming --help' for usage.")
      })
  )
})

describe("token mint", () => {
  it.live("prints a JWT for the subject and roles, signed with the secret in DATA_DIR/dev-secrets.json", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDir("cli-mint-")
      const result = yield* runCli(["token", "mint", "--sub", "u1", "--role", "admin"], { DATA_DIR: dataDir })
      assert.strictEqual(result.code, 0, result.stderr)
      const token = result.stdout.trim()
      assert.match(token, JWT)
      const secret = new TextEncoder().encode(devSecret(dataDir, "AUTH_JWT_SECRET"))
      const { payload, protectedHeader } = yield* Effect.promise(() => Jose.jwtVerify(token, secret))
      assert.strictEqual(protectedHeader.alg, "HS256")
      assert.strictEqual(payload.sub, "u1")
      assert.deepStrictEqual(payload.roles, ["admin"])
      // The default lifetime is one hour.
      assert.approximately(payload.exp ?? 0, Math.floor(Date.now() / 1000) + 3600, 10)
    })
  )

  it.live("with every secret in the environment, it signs with that one and writes no dev-secrets.json", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDir("cli-configured-")
      const result = yield* runCli(["token", "mint", "--sub", "u1"], {
        ...TEST_SECRETS,
        DATA_DIR: dataDir,
        LOG_LEVEL: "debug"
      })
      assert.strictEqual(result.code, 0, result.stderr)
      const secret = new TextEncoder().encode(TEST_SECRETS.AUTH_JWT_SECRET)
      yield* Effect.promise(() => Jose.jwtVerify(result.stdout.trim(), secret))
      assert.isFalse(existsSync(join(dataDir, "dev-secrets.json")))
      assert.notMatch(result.stderr, /development secrets/)
    })
  )

  it.live("two commands starting together on a fresh DATA_DIR agree on one set of development secrets", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDir("cli-race-")
      const results = yield* Effect.all(
        Array.from({ length: 4 }, (_, i) => runCli(["token", "mint", "--sub", `u${i}`], { DATA_DIR: dataDir })),
        { concurrency: "unbounded" }
      )
      const secret = new TextEncoder().encode(devSecret(dataDir, "AUTH_JWT_SECRET"))
      for (const result of results) {
        assert.strictEqual(result.code, 0, result.stderr)
        yield* Effect.promise(() => Jose.jwtVerify(result.stdout.trim(), secret))
      }
    })
  )

  it.live("--json gives token, sub, roles and expiresAt; --ttl and repeated --role are honoured", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDir("cli-mint-json-")
      const result = yield* runCli(
        ["token", "mint", "--sub", "ops", "--role", "admin", "--role", "support", "--ttl", "15m", "--json"],
        { DATA_DIR: dataDir }
      )
      assert.strictEqual(result.code, 0, result.stderr)
      const output = JSON.parse(result.stdout)
      assert.deepStrictEqual(Object.keys(output).sort(), ["expiresAt", "roles", "sub", "token"])
      assert.strictEqual(output.sub, "ops")
      assert.deepStrictEqual(output.roles, ["admin", "support"])
      const expiresAt = Date.parse(output.expiresAt)
      assert.approximately(expiresAt, Date.now() + 15 * 60_000, 10_000)
      const secret = new TextEncoder().encode(devSecret(dataDir, "AUTH_JWT_SECRET"))
      const { payload } = yield* Effect.promise(() => Jose.jwtVerify(output.token, secret))
      assert.deepStrictEqual(payload.roles, ["admin", "support"])
      assert.approximately((payload.exp ?? 0) * 1000, expiresAt, 2_000)
    })
  )

  it.live("a configured AUTH_JWT_SECRET is used instead of the file", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDir("cli-mint-configured-")
      const configured = "cli-test-configured-secret-0123456789abcdef"
      const result = yield* runCli(["token", "mint", "--sub", "u1"], { DATA_DIR: dataDir, AUTH_JWT_SECRET: configured })
      assert.strictEqual(result.code, 0, result.stderr)
      const { payload } = yield* Effect.promise(() =>
        Jose.jwtVerify(result.stdout.trim(), new TextEncoder().encode(configured))
      )
      assert.strictEqual(payload.sub, "u1")
    })
  )
})

describe("db migrate", () => {
  it.live(
    "applies the migrations once; a second run says the database is up to date",
    () =>
      Effect.gen(function* () {
        const { url, sql } = yield* freshDatabase
        const dataDir = yield* tempDir("cli-migrate-")
        const env = { DATA_DIR: dataDir, DATABASE_URL: url }
        const first = yield* runCli(["db", "migrate", "--json"], env)
        assert.strictEqual(first.code, 0, first.stderr)
        assert.deepStrictEqual(JSON.parse(first.stdout), { applied: REGISTERED })

        const second = yield* runCli(["db", "migrate"], env)
        assert.strictEqual(second.code, 0, second.stderr)
        assert.match(second.stdout, /up to date/i)
        const third = yield* runCli(["db", "migrate", "--json"], env)
        assert.strictEqual(third.code, 0, third.stderr)
        assert.deepStrictEqual(JSON.parse(third.stdout), { applied: [] })

        const rows = yield* sql<{ migration_id: number }>`SELECT migration_id FROM schema_migrations`
        assert.strictEqual(rows.length, REGISTERED.length)
      }),
    60_000
  )

  it.live(
    "two processes migrating the same fresh database at once both succeed, each migration applied once",
    () =>
      Effect.gen(function* () {
        const { url, sql } = yield* freshDatabase
        const runs = yield* Effect.all(
          [1, 2].map((n) =>
            Effect.flatMap(tempDir(`cli-migrate-race-${n}-`), (dataDir) =>
              runCli(["db", "migrate", "--json"], { DATA_DIR: dataDir, DATABASE_URL: url })
            )
          ),
          { concurrency: "unbounded" }
        )
        for (const run of runs) assert.strictEqual(run.code, 0, run.stderr)
        // Exactly one of them did the work; the other found nothing left.
        const applied = runs.map((run) => JSON.parse(run.stdout).applied as Array<string>)
        assert.sameDeepMembers(applied, [REGISTERED, []])

        const rows = yield* sql<{ id: number; times: string }>`
          SELECT migration_id AS id, count(*) AS times FROM schema_migrations GROUP BY migration_id ORDER BY migration_id`
        assert.deepStrictEqual(
          rows.map((row) => [row.id, Number(row.times)]),
          REGISTERED.map((key) => [Number(key.slice(0, key.indexOf("_"))), 1])
        )
      }),
    60_000
  )

  it.live("NODE_ENV=PRODUCTION is production too; an unknown NODE_ENV exits 1 in one line naming it", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDir("cli-node-env-")
      const upper = yield* runCli(["db", "migrate"], {
        NODE_ENV: "PRODUCTION",
        DATA_DIR: dataDir,
        DATABASE_URL: "postgres://postgres@127.0.0.1:1/none"
      })
      assert.strictEqual(upper.code, 1, upper.stderr)
      assert.include(upper.stderr, "NODE_ENV=production refuses to start: ")
      const unknown = yield* runCli(["token", "mint", "--sub", "user-1"], { NODE_ENV: "prod", DATA_DIR: dataDir })
      assert.strictEqual(unknown.code, 1, unknown.stderr)
      assert.strictEqual(unknown.stdout, "")
      assert.strictEqual(
        unknown.stderr,
        'error: NODE_ENV must be production, development or test (any case), not "prod"\n'
      )
      // Nothing was generated: the development secrets are never written under an unknown NODE_ENV.
      assert.isFalse(existsSync(join(dataDir, "dev-secrets.json")))
    })
  )

  it.live("NODE_ENV=production without secrets exits 1 naming every missing variable", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDir("cli-production-")
      const result = yield* runCli(["db", "migrate"], {
        NODE_ENV: "production",
        DATA_DIR: dataDir,
        // Never reached: the secrets are checked first. A closed port keeps a mistake fast and visible.
        DATABASE_URL: "postgres://postgres@127.0.0.1:1/none"
      })
      assert.strictEqual(result.code, 1, result.stderr)
      for (const name of ["AUTH_JWT_SECRET", "INTERNAL_API_KEY", "WEBHOOK_SECRETS", "CARD_FINGERPRINT_KEY"]) {
        assert.include(result.stderr, name)
      }
      assert.notInclude(result.stderr, "    at ", "no stack trace for a configuration error")
    })
  )
})
