import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigProvider, Effect, Layer, Option, Redacted } from "effect"
import { jwtSettings } from "../../packages/adapters/src/auth/JwtConfig.ts"
import * as DevSecrets from "../../packages/adapters/src/config/DevSecrets.ts"

const SECRETS = ["AUTH_JWT_SECRET", "INTERNAL_API_KEY", "WEBHOOK_SECRETS", "CARD_FINGERPRINT_KEY"] as const

const ALL_SET = {
  AUTH_JWT_SECRET: "configured-jwt-secret-of-at-least-32-bytes",
  INTERNAL_API_KEY: "configured-internal-key",
  WEBHOOK_SECRETS: "configured-webhook-a,configured-webhook-b",
  CARD_FINGERPRINT_KEY: "configured-card-key"
}

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
  it.effect("with nothing set, fails with MissingConfiguration naming every missing variable", () =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      const error = yield* readSecrets({ NODE_ENV: "production", DATA_DIR: dir }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "MissingConfiguration")
      assert.instanceOf(error, DevSecrets.MissingConfiguration)
      for (const name of SECRETS) assert.include(error.message, name)
      assert.deepStrictEqual(readdirSync(dir), [], "nothing is generated in production")
    })
  )

  it.effect("names only the variables that are missing, and treats blank as missing", () =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      const error = yield* readSecrets({
        NODE_ENV: "production",
        DATA_DIR: dir,
        AUTH_JWT_SECRET: ALL_SET.AUTH_JWT_SECRET,
        INTERNAL_API_KEY: "   ",
        WEBHOOK_SECRETS: ALL_SET.WEBHOOK_SECRETS
      }).pipe(Effect.flip)
      assert.instanceOf(error, DevSecrets.MissingConfiguration)
      if (error instanceof DevSecrets.MissingConfiguration) {
        assert.deepStrictEqual([...error.variables], ["INTERNAL_API_KEY", "CARD_FINGERPRINT_KEY"])
      }
    })
  )

  it.effect("with AUTH_JWKS_URL set, AUTH_JWT_SECRET is not required", () =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      const { AUTH_JWT_SECRET: _, ...others } = ALL_SET
      const env = { NODE_ENV: "production", DATA_DIR: dir, AUTH_JWKS_URL: "https://idp.test/jwks.json", ...others }
      const value = yield* Config.Redacted("INTERNAL_API_KEY").pipe(Effect.provide(withEnv(env)))
      assert.strictEqual(Redacted.value(value), ALL_SET.INTERNAL_API_KEY)

      const missing = yield* readSecrets({
        NODE_ENV: "production",
        DATA_DIR: dir,
        AUTH_JWKS_URL: "https://idp.test/jwks.json"
      }).pipe(Effect.flip)
      assert.instanceOf(missing, DevSecrets.MissingConfiguration)
      assert.notInclude(missing.message, "AUTH_JWT_SECRET")
      assert.include(missing.message, "INTERNAL_API_KEY")
      assert.deepStrictEqual(readdirSync(dir), [])
    })
  )

  it.effect("with every secret set, succeeds with the configured values and writes no file", () =>
    Effect.gen(function* () {
      const dir = yield* tempDataDir
      const values = yield* readSecrets({ NODE_ENV: "production", DATA_DIR: dir, ...ALL_SET })
      assert.deepStrictEqual(values, ALL_SET)
      assert.deepStrictEqual(readdirSync(dir), [])
    })
  )
})
