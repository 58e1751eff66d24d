import { randomBytes } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { Config, ConfigProvider, Effect, Layer, Option, Schema } from "effect"

/** The secrets a development machine may generate for itself; production must be given each one. */
export const GENERATED_SECRETS = [
  "AUTH_JWT_SECRET",
  "INTERNAL_API_KEY",
  "WEBHOOK_SECRETS",
  "CARD_FINGERPRINT_KEY"
] as const
type SecretName = (typeof GENERATED_SECRETS)[number]

export class MissingConfiguration extends Schema.TaggedError<MissingConfiguration>()("MissingConfiguration", {
  variables: Schema.Array(Schema.String)
}) {
  override get message() {
    return `NODE_ENV=production requires these variables, which are not set: ${this.variables.join(", ")}`
  }
}

export class DevSecretsError extends Schema.TaggedError<DevSecretsError>()("DevSecretsError", {
  path: Schema.String,
  cause: Schema.Defect()
}) {
  override get message() {
    return `cannot read or write the development secrets file ${this.path}`
  }
}

const SecretsFile = Schema.fromJsonString(Schema.Record(Schema.String, Schema.String))

const isSet = (name: string) =>
  Config.String(name).pipe(Config.option, Config.map(Option.exists((value) => value.trim() !== "")))

const generate = () => randomBytes(32).toString("base64url")

/**
 * Loads `DATA_DIR/dev-secrets.json`, adds any secret it lacks, and writes it back with mode 0600.
 * Returns the secrets and the names generated this time, so start-up can announce them.
 */
const loadOrCreate = (path: string) =>
  Effect.try({
    try: () => {
      const existing = existsSync(path) ? Schema.decodeUnknownSync(SecretsFile)(readFileSync(path, "utf8")) : {}
      const secrets: Record<string, string> = { ...existing }
      const generated: Array<SecretName> = []
      for (const name of GENERATED_SECRETS) {
        if (secrets[name] === undefined || secrets[name] === "") {
          secrets[name] = generate()
          generated.push(name)
        }
      }
      if (generated.length > 0) {
        mkdirSync(join(path, ".."), { recursive: true })
        writeFileSync(path, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 })
      }
      // A file copied in with loose permissions is tightened: it holds signing keys.
      chmodSync(path, 0o600)
      return { secrets, generated }
    },
    catch: (cause) => new DevSecretsError({ path, cause })
  })

/**
 * Where unset secrets come from. In production (`NODE_ENV=production`) nothing is generated: start-up
 * fails naming every missing variable. Elsewhere an unset secret is read from (or generated into)
 * `DATA_DIR/dev-secrets.json`; a configured value always wins because the file is only a fallback.
 */
export const layer = Layer.unwrap(
  Effect.gen(function* () {
    const production = yield* Config.String("NODE_ENV").pipe(
      Config.withDefault(""),
      Config.map((env) => env === "production")
    )
    if (production) {
      const jwks = yield* isSet("AUTH_JWKS_URL")
      const required = GENERATED_SECRETS.filter((name) => !(name === "AUTH_JWT_SECRET" && jwks))
      const missing: Array<string> = []
      for (const name of required) {
        if (!(yield* isSet(name))) missing.push(name)
      }
      if (missing.length > 0) return yield* new MissingConfiguration({ variables: missing })
      return Layer.empty
    }
    const dataDir = yield* Config.String("DATA_DIR").pipe(Config.withDefault("./.data"))
    const path = resolve(dataDir, "dev-secrets.json")
    const { secrets, generated } = yield* loadOrCreate(path)
    const unset: Array<string> = []
    for (const name of GENERATED_SECRETS) {
      if (!(yield* isSet(name))) unset.push(name)
    }
    if (generated.length > 0) {
      yield* Effect.logWarning(`Generated development secrets ${generated.join(", ")} in ${path} (not for production)`)
    }
    if (unset.length > 0) {
      yield* Effect.logInfo(`Using development secrets from ${path} for ${unset.join(", ")}`)
    }
    return ConfigProvider.layerAdd(ConfigProvider.fromUnknown(secrets))
  })
)
