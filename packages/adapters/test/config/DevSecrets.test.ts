import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigProvider, Duration, Effect, Layer, Logger, Option, Redacted, References } from "effect"
import { jwtSettings } from "../../src/auth/JwtConfig.ts"
import * as DevSecrets from "../../src/config/DevSecrets.ts"
import { UnsafeConfiguration } from "../../src/config/ProductionConfig.ts"
import { TEST_SECRETS } from "../support/TestSecrets.ts"

const SECRETS = ["AUTH_JWT_SECRET", "INTERNAL_API_KEY", "WEBHOOK_SECRETS", "CARD_FINGERPRINT_KEY"] as const

/** Every secret configured: the suite's (each at least 32 bytes). */
const ALL_SET = TEST_SECRETS

/** A production environment that passes every check: the secrets and a database URL. */
const PRODUCTION = { NODE_ENV: "production", DATABASE_URL: "postgres://postgres@db.test:5432/app", ...ALL_SET }

/** A temporary DATA_DIR, removed with the scope. */
const tempDataDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "dev-secrets-test-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/**
 * The environment `env` with DevSecrets on top, as the service composes them. provideMerge keeps the
 * base provider visible when DevSecrets adds none (production), like the process environment is.
 */
const withEnv = (env: Record<string, string>) =>
  DevSecrets.layer.pipe(Layer.provideMerge(ConfigProvider.layer(ConfigProvider.fromUnknown(env))))

/** Each secret as the service would read it with `env` as its environment. */
const readSecrets = (env: Record<string, string>) =>
  Effect.gen(function* () {
    const values: Record<string, string> = {}
    for (const name of SECRETS) values[name] = Redacted.value(yield* Config.Redacted(name))
    return values
  }).pipe(Effect.provide(withEnv(env)))

const fileOf = (dir: string) => join(dir, "dev-secrets.json")
const readFile = (dir: string): Record<string, string> => JSON.parse(readFileSync(fileOf(dir), "utf8"))

const CHILD = fileURLToPath(new URL("../support/devSecretsChild.ts", import.meta.url))

/** The JWT secret a separate process reading `dir` at `startAt` would sign with. */
const secretOfChild = (dir: string, startAt: number) =>
  Effect.callback<string, Error>((resume) => {
    const child = execFile(
      process.execPath,
      ["--conditions=payments-gaming-source", CHILD],
      { env: { PATH: process.env.PATH ?? "", DATA_DIR: dir, START_AT: String(startAt) } },
      // The layer's own log lines come first; the secret is the last line.
      (error, stdout, stderr) =>
        resume(
          error
            ? Effect.fail(new Error(`${error.message}\n${stderr}`))
            : Effect.succeed(stdout.trim().split("\n").at(-1) ?? "")
        )
    )
    return Effect.sync(() => child.kill())
  })

describe("DevSecrets outside production", () => {
  it.effect("generates the four secrets into DATA_DIR/dev-secrets.json with mode 0600 and serves them", () =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      const values = yield* readSecrets({ DATA_DIR: dir })
      assert.strictEqual(statSync(fileOf(dir)).mode & 0o777, 0o600)
      const file = readFile(dir)
      assert.deepStrictEqual(Object.keys(file).sort(), [...SECRETS].sort())
      assert.deepStrictEqual(values, file)
      for (const name of SECRETS) {
        assert.isAtLeast(Buffer.byteLength(file[name] ?? "", "utf8"), 32, `${name} is long enough to be a key`)
      }
      assert.strictEqual(new Set(Object.values(file)).size, SECRETS.length, "each secret is generated on its own")
    })
  )

  it.effect("the generated JWT secret satisfies the JWT configuration (at least 32 bytes)", () =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      const settings = yield* jwtSettings.pipe(Effect.provide(withEnv({ DATA_DIR: dir })))
      assert.isTrue(Option.isSome(settings.secret))
      assert.strictEqual(
        Option.map(settings.secret, Redacted.value).pipe(Option.getOrThrow),
        readFile(dir).AUTH_JWT_SECRET
      )
    })
  )

  it.live(
    "processes starting in the same instant on a fresh DATA_DIR all use the secret the file keeps",
    () =>
      Effect.gen(function* () {
        for (let round = 0; round < 5; round++) {
          const dir = yield* tempDataDir
          // Far enough ahead that all eight have loaded their modules and are waiting.
          const startAt = Date.now() + 3_000
          const secrets = yield* Effect.all(
            Array.from({ length: 8 }, () => secretOfChild(dir, startAt)),
            { concurrency: "unbounded" }
          )
          const kept = readFile(dir).AUTH_JWT_SECRET
          assert.deepStrictEqual(
            secrets,
            secrets.map(() => kept),
            `round ${round}`
          )
        }
      }).pipe(Effect.scoped),
    60_000
  )

  it.effect("a second build reuses the file instead of generating again", () =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      const first = yield* readSecrets({ DATA_DIR: dir })
      const before = readFileSync(fileOf(dir), "utf8")
      const second = yield* readSecrets({ DATA_DIR: dir })
      assert.deepStrictEqual(second, first)
      assert.strictEqual(readFileSync(fileOf(dir), "utf8"), before)
    })
  )

  it.effect("with every secret configured, nothing is generated, written or announced", () =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      const logs: Array<string> = []
      const logger = Logger.make<unknown, void>(({ message }) => {
        logs.push(String(Array.isArray(message) ? message.join(" ") : message))
      })
      const values = yield* readSecrets({ ...ALL_SET, DATA_DIR: dir }).pipe(
        Effect.provide(Logger.layer([logger])),
        Effect.provideService(References.MinimumLogLevel, "All")
      )
      assert.deepStrictEqual(values, Object.fromEntries(SECRETS.map((name) => [name, ALL_SET[name]])))
      assert.isFalse(existsSync(fileOf(dir)), "no dev-secrets.json")
      assert.deepStrictEqual(
        logs.filter((line) => /secret/i.test(line)),
        []
      )
    })
  )

  it.effect("only the unset secrets are generated, written and announced", () =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      const logs: Array<string> = []
      const logger = Logger.make<unknown, void>(({ message }) => {
        logs.push(String(Array.isArray(message) ? message.join(" ") : message))
      })
      const { AUTH_JWT_SECRET: _, ...others } = ALL_SET
      const values = yield* readSecrets({ ...others, DATA_DIR: dir }).pipe(
        Effect.provide(Logger.layer([logger])),
        Effect.provideService(References.MinimumLogLevel, "All")
      )
      const file = readFile(dir)
      assert.deepStrictEqual(Object.keys(file), ["AUTH_JWT_SECRET"])
      assert.deepStrictEqual(values, { ...others, AUTH_JWT_SECRET: file.AUTH_JWT_SECRET ?? "" })
      assert.deepStrictEqual(
        logs.filter((line) => line.startsWith("Generated development secrets")),
        [`Generated development secrets AUTH_JWT_SECRET in ${fileOf(dir)} (not for production)`]
      )
    })
  )

  it.effect("a configured value wins over the file", () =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      const generated = yield* readSecrets({ DATA_DIR: dir })
      const values = yield* readSecrets({ DATA_DIR: dir, AUTH_JWT_SECRET: ALL_SET.AUTH_JWT_SECRET })
      assert.strictEqual(values.AUTH_JWT_SECRET, ALL_SET.AUTH_JWT_SECRET)
      assert.strictEqual(values.INTERNAL_API_KEY, generated.INTERNAL_API_KEY)
      // The configured value is not written into the file.
      assert.strictEqual(readFile(dir).AUTH_JWT_SECRET, generated.AUTH_JWT_SECRET)
    })
  )

  it.effect("a file with a missing entry is completed, keeping the others", () =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      writeFileSync(fileOf(dir), JSON.stringify({ AUTH_JWT_SECRET: "kept-jwt-secret-that-is-at-least-32-bytes" }), {
        mode: 0o644
      })
      const values = yield* readSecrets({ DATA_DIR: dir })
      assert.strictEqual(values.AUTH_JWT_SECRET, "kept-jwt-secret-that-is-at-least-32-bytes")
      assert.deepStrictEqual(Object.keys(readFile(dir)).sort(), [...SECRETS].sort())
      assert.strictEqual(statSync(fileOf(dir)).mode & 0o777, 0o600)
    })
  )

  it.effect("a corrupt file is an error naming the file, not silently replaced", () =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      writeFileSync(fileOf(dir), "{ not json", { mode: 0o600 })
      const error = yield* readSecrets({ DATA_DIR: dir }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "DevSecretsError")
      assert.include(error.message, fileOf(dir))
      assert.strictEqual(readFileSync(fileOf(dir), "utf8"), "{ not json")
    })
  )
})

describe("DevSecrets in production", () => {
  /** The refusal for `env` (a production environment), failing the test if it was accepted. */
  const refusal = (env: Record<string, string>) =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      const error = yield* readSecrets({ DATA_DIR: dir, ...env }).pipe(Effect.flip)
      assert.deepStrictEqual(readdirSync(dir), [], "nothing is generated in production")
      assert.instanceOf(error, UnsafeConfiguration)
      return error as UnsafeConfiguration
    })

  it.effect("with nothing set, one error names every missing variable and the missing DATABASE_URL", () =>
    Effect.gen(function* () {
      const error = yield* refusal({ NODE_ENV: "production" })
      assert.strictEqual(error._tag, "UnsafeConfiguration")
      assert.deepStrictEqual(
        [...error.problems],
        [
          "AUTH_JWT_SECRET, INTERNAL_API_KEY, WEBHOOK_SECRETS, CARD_FINGERPRINT_KEY are not set",
          "DATABASE_URL is not set (the embedded database is unauthenticated and single-process; set EMBEDDED_DATABASE=allow to use it anyway)"
        ]
      )
      assert.match(error.message, /^NODE_ENV=production refuses to start: /)
    })
  )

  it.effect("names only the variables that are missing, and treats blank as missing", () =>
    Effect.gen(function* () {
      const { INTERNAL_API_KEY: _, CARD_FINGERPRINT_KEY: __, ...others } = PRODUCTION
      const error = yield* refusal({ ...others, INTERNAL_API_KEY: "   " })
      assert.deepStrictEqual([...error.problems], ["INTERNAL_API_KEY, CARD_FINGERPRINT_KEY are not set"])
    })
  )

  it.effect("a secret shorter than 32 UTF-8 bytes is refused, without its value", () =>
    Effect.gen(function* () {
      for (const name of ["AUTH_JWT_SECRET", "INTERNAL_API_KEY", "CARD_FINGERPRINT_KEY", "WEBHOOK_SECRETS"]) {
        const error = yield* refusal({ ...PRODUCTION, [name]: "short-secret" })
        assert.deepStrictEqual([...error.problems], [`${name} is shorter than 32 bytes`])
        assert.notInclude(error.message, "short-secret")
      }
      // Bytes, not characters: 16 two-byte characters are 32 bytes, 31 ASCII characters are not.
      const accented = "é".repeat(16)
      const values = yield* readSecrets({ ...PRODUCTION, DATA_DIR: "/nonexistent", INTERNAL_API_KEY: accented })
      assert.strictEqual(values.INTERNAL_API_KEY, accented)
      yield* refusal({ ...PRODUCTION, INTERNAL_API_KEY: "x".repeat(31) })
    })
  )

  it.effect("each WEBHOOK_SECRETS entry must be 32 bytes; the weak entries are named by position", () =>
    Effect.gen(function* () {
      const strong = "w".repeat(32)
      const error = yield* refusal({ ...PRODUCTION, WEBHOOK_SECRETS: `${strong},abc, ${strong} ,def` })
      assert.deepStrictEqual([...error.problems], ["WEBHOOK_SECRETS (entries 2, 4 of 4) is shorter than 32 bytes"])
      assert.notInclude(error.message, strong)
      const empty = yield* refusal({ ...PRODUCTION, WEBHOOK_SECRETS: " , " })
      assert.deepStrictEqual([...empty.problems], ["WEBHOOK_SECRETS is not set"])
    })
  )

  it.effect("several problems are all reported at once", () =>
    Effect.gen(function* () {
      const { DATABASE_URL: _, AUTH_JWT_SECRET: __, ...others } = PRODUCTION
      const error = yield* refusal({
        ...others,
        AUTH_JWKS_URL: "https://idp.test/jwks.json",
        INTERNAL_API_KEY: "12345",
        WEBHOOK_SECRETS: "abc"
      })
      assert.deepStrictEqual(
        [...error.problems],
        [
          "INTERNAL_API_KEY, WEBHOOK_SECRETS are shorter than 32 bytes",
          "AUTH_JWKS_URL is set without AUTH_ISSUER and AUTH_AUDIENCE",
          "DATABASE_URL is not set (the embedded database is unauthenticated and single-process; set EMBEDDED_DATABASE=allow to use it anyway)"
        ]
      )
    })
  )

  it.effect("with AUTH_JWKS_URL, AUTH_JWT_SECRET is not required but AUTH_ISSUER and AUTH_AUDIENCE are", () =>
    Effect.gen(function* () {
      const { AUTH_JWT_SECRET: _, ...others } = PRODUCTION
      const jwks = { ...others, AUTH_JWKS_URL: "https://idp.test/jwks.json" }
      const noAudience = yield* refusal({ ...jwks, AUTH_ISSUER: "https://idp.test/" })
      assert.deepStrictEqual([...noAudience.problems], ["AUTH_JWKS_URL is set without AUTH_AUDIENCE"])
      const blank = yield* refusal({ ...jwks, AUTH_ISSUER: " ", AUTH_AUDIENCE: "payments-gaming" })
      assert.deepStrictEqual([...blank.problems], ["AUTH_JWKS_URL is set without AUTH_ISSUER"])

      const env = { ...jwks, AUTH_ISSUER: "https://idp.test/", AUTH_AUDIENCE: "payments-gaming", DATA_DIR: "/none" }
      const value = yield* Config.Redacted("INTERNAL_API_KEY").pipe(Effect.provide(withEnv(env)))
      assert.strictEqual(Redacted.value(value), ALL_SET.INTERNAL_API_KEY)
    })
  )

  it.effect("AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE are accepted as aliases; the contract's names win", () =>
    Effect.gen(function* () {
      const { AUTH_JWT_SECRET: _, ...others } = PRODUCTION
      const env = {
        ...others,
        DATA_DIR: "/none",
        AUTH_JWKS_URL: "https://idp.test/jwks.json",
        AUTH_JWT_ISSUER: "https://alias.test/",
        AUTH_JWT_AUDIENCE: "alias-audience",
        AUTH_AUDIENCE: "payments-gaming"
      }
      const settings = yield* jwtSettings.pipe(Effect.provide(withEnv(env)))
      assert.deepStrictEqual(settings.issuer, Option.some("https://alias.test/"))
      assert.deepStrictEqual(settings.audience, Option.some("payments-gaming"))
    })
  )

  it.effect("without DATABASE_URL, EMBEDDED_DATABASE=allow is the deliberate way to start", () =>
    Effect.gen(function* () {
      const { DATABASE_URL: _, ...others } = PRODUCTION
      const error = yield* refusal({ ...others, EMBEDDED_DATABASE: "yes" })
      assert.strictEqual(error.problems.length, 1)
      assert.include(error.message, "EMBEDDED_DATABASE=allow")
      const values = yield* readSecrets({ ...others, DATA_DIR: "/none", EMBEDDED_DATABASE: "allow" })
      assert.deepStrictEqual(values, ALL_SET)
    })
  )

  it.effect("with every secret and DATABASE_URL set, succeeds with the configured values and writes no file", () =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      const values = yield* readSecrets({ ...PRODUCTION, DATA_DIR: dir })
      assert.deepStrictEqual(values, ALL_SET)
      assert.deepStrictEqual(readdirSync(dir), [])
    })
  )
})

describe("AUTH_MAX_TOKEN_TTL", () => {
  const ttlOf = (env: Record<string, string>) =>
    jwtSettings.pipe(
      Effect.map((settings) => Duration.toSeconds(settings.maxTokenTtl)),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env)))
    )

  it.effect("is 24 hours by default and read as an Effect duration", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* ttlOf({}), 24 * 3600)
      assert.strictEqual(yield* ttlOf({ AUTH_MAX_TOKEN_TTL: "15 minutes" }), 900)
    })
  )

  it.effect("refuses zero, a negative, an infinite or an unreadable duration", () =>
    Effect.gen(function* () {
      for (const value of ["0 seconds", "-1 hours", "Infinity", "a while"]) {
        const error = yield* ttlOf({ AUTH_MAX_TOKEN_TTL: value }).pipe(Effect.flip)
        assert.strictEqual(error._tag, "ConfigError", value)
      }
    })
  )
})
