import { readdirSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { TEST_SECRETS } from "@payments-gaming/adapters/test/support/TestSecrets"
import { Effect } from "effect"
import { runNode, SERVER, spawnNode, tempDir } from "../../support/NodeProcess.ts"

/** The suite's secrets pass every production check (each at least 32 bytes). */
const STRONG = TEST_SECRETS
/** Never reached: the configuration is checked before the database is opened, and port 1 refuses at once. */
const UNREACHABLE_DATABASE = "postgres://postgres@127.0.0.1:1/none"
const PREFIX = "NODE_ENV=production refuses to start: "
const NO_DATABASE =
  "DATABASE_URL is not set (the embedded database is unauthenticated and single-process; set EMBEDDED_DATABASE=allow to use it anyway)"

/**
 * Runs the real entry point (the bundle of apps/http/src/main.js that `npm start` runs) in production with `env` on top of a safe
 * configuration (`undefined` removes a variable), and returns the one line it must log before
 * exiting 1: a JSON object at level ERROR whose message is the refusal.
 */
const refusalOf = (env: Record<string, string | undefined>) =>
  Effect.gen(function* () {
    const merged: Record<string, string | undefined> = {
      NODE_ENV: "production",
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: yield* tempDir("production-startup-"),
      DATABASE_URL: UNREACHABLE_DATABASE,
      ...STRONG,
      ...env
    }
    const defined = Object.fromEntries(
      Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined)
    )
    const result = yield* runNode(SERVER, [], defined)
    assert.strictEqual(result.code, 1, `exit code\n${result.stdout}${result.stderr}`)
    assert.strictEqual(result.stderr, "", "nothing on stderr")
    const lines = result.stdout.split("\n").filter((line) => line.trim() !== "")
    assert.strictEqual(lines.length, 1, `logged once:\n${result.stdout}`)
    const line = JSON.parse(lines[0] as string) as { message: unknown; level: unknown }
    assert.strictEqual(line.level, "ERROR")
    assert.isString(line.message)
    const message = line.message as string
    assert.isTrue(message.startsWith(PREFIX), message)
    assert.notInclude(lines[0] as string, "    at ", "no stack trace")
    for (const value of Object.values(defined)) {
      if (value.length >= 3 && value !== "production" && value !== "127.0.0.1") {
        assert.notInclude(message, value, "no configured value is echoed")
      }
    }
    return message.slice(PREFIX.length)
  })

describe("a production start with unsafe configuration exits 1 with one line (real entry point)", () => {
  it.live(
    "no DATABASE_URL",
    () =>
      Effect.gen(function* () {
        assert.strictEqual(yield* refusalOf({ DATABASE_URL: undefined }), NO_DATABASE)
        // Anything but "allow" is no permission.
        assert.strictEqual(yield* refusalOf({ DATABASE_URL: undefined, EMBEDDED_DATABASE: "yes" }), NO_DATABASE)
      }),
    60_000
  )

  // [title, the short setting, the refusal]; AUTH_JWT_SECRET at 31 bytes is one short of the minimum.
  const tooShort: ReadonlyArray<readonly [string, Record<string, string>, string]> = [
    ["AUTH_JWT_SECRET shorter than 32 bytes", { AUTH_JWT_SECRET: "j".repeat(31) }, "AUTH_JWT_SECRET"],
    [
      "a WEBHOOK_SECRETS entry shorter than 32 bytes",
      { WEBHOOK_SECRETS: `${"w".repeat(40)},abc` },
      "WEBHOOK_SECRETS (entry 2 of 2)"
    ],
    ["INTERNAL_API_KEY shorter than 32 bytes", { INTERNAL_API_KEY: "12345" }, "INTERNAL_API_KEY"],
    [
      "CARD_FINGERPRINT_KEY shorter than 32 bytes",
      { CARD_FINGERPRINT_KEY: "card-key-too-short" },
      "CARD_FINGERPRINT_KEY"
    ]
  ]
  for (const [title, setting, named] of tooShort) {
    it.live(
      title,
      () =>
        Effect.gen(function* () {
          assert.strictEqual(yield* refusalOf(setting), `${named} is shorter than 32 bytes`)
        }),
      60_000
    )
  }

  it.live(
    "JWKS mode without an issuer and an audience",
    () =>
      Effect.gen(function* () {
        const jwks = { AUTH_JWT_SECRET: undefined, AUTH_JWKS_URL: "https://idp.test/.well-known/jwks.json" }
        assert.strictEqual(yield* refusalOf(jwks), "AUTH_JWKS_URL is set without AUTH_ISSUER and AUTH_AUDIENCE")
        assert.strictEqual(
          yield* refusalOf({ ...jwks, AUTH_ISSUER: "https://idp.test/" }),
          "AUTH_JWKS_URL is set without AUTH_AUDIENCE"
        )
      }),
    60_000
  )

  it.live(
    "several problems are all named in the one line",
    () =>
      Effect.gen(function* () {
        const problem = yield* refusalOf({
          DATABASE_URL: undefined,
          AUTH_JWT_SECRET: undefined,
          INTERNAL_API_KEY: "ik-7f3a",
          CARD_FINGERPRINT_KEY: "cfk-9b2e"
        })
        assert.strictEqual(
          problem,
          [
            "AUTH_JWT_SECRET is not set",
            "INTERNAL_API_KEY, CARD_FINGERPRINT_KEY are shorter than 32 bytes",
            NO_DATABASE
          ].join("; ")
        )
      }),
    60_000
  )

  it.live(
    "NODE_ENV in another case is production all the same (issue 34, finding 15)",
    () =>
      Effect.gen(function* () {
        for (const spelling of ["PRODUCTION", "Production", " production "]) {
          assert.strictEqual(yield* refusalOf({ NODE_ENV: spelling, DATABASE_URL: undefined }), NO_DATABASE)
        }
      }),
    90_000
  )

  it.live(
    "an unknown NODE_ENV is refused in one line naming the variable, before anything is written",
    () =>
      Effect.gen(function* () {
        const dataDir = yield* tempDir("production-startup-unknown-")
        const result = yield* runNode(SERVER, [], {
          NODE_ENV: "staging",
          PORT: "0",
          HOST: "127.0.0.1",
          DATA_DIR: dataDir
        })
        assert.strictEqual(result.code, 1, `${result.stdout}${result.stderr}`)
        const lines = `${result.stdout}${result.stderr}`.split("\n").filter((line) => line.trim() !== "")
        assert.lengthOf(lines, 1, result.stdout)
        assert.match(
          lines[0] as string,
          /ERROR .*NODE_ENV must be production, development or test \(any case\), not "staging"$/
        )
        assert.notInclude(lines[0] as string, "SourceError")
        // Refused before the development secrets would be generated or the database opened.
        assert.deepStrictEqual(readdirSync(dataDir), [])
      }),
    60_000
  )

  it.live(
    "EMBEDDED_DATABASE=allow starts on the embedded database on purpose",
    () =>
      Effect.gen(function* () {
        const server = yield* spawnNode(SERVER, [], {
          NODE_ENV: "production",
          PORT: "0",
          HOST: "127.0.0.1",
          DATA_DIR: yield* tempDir("production-startup-embedded-"),
          EMBEDDED_DATABASE: "allow",
          ...STRONG
        })
        yield* server.waitForStdout(/Listening on http:\/\/127\.0\.0\.1:\d+/, 60_000)
        assert.include(server.stdout(), "Embedded PostgreSQL (PGlite)")
        yield* server.kill("SIGTERM")
        assert.strictEqual((yield* server.exit(20_000)).code, 0)
      }),
    90_000
  )
})
