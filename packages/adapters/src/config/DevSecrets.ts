import { randomBytes } from "node:crypto"
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { Config, ConfigProvider, Effect, Layer, Option, Schema } from "effect"
import { isProduction } from "./NodeEnv.ts"
import { checkProduction } from "./ProductionConfig.ts"

/** The secrets a development machine may generate for itself; production must be given each one. */
export const GENERATED_SECRETS = [
  "AUTH_JWT_SECRET",
  "INTERNAL_API_KEY",
  "WEBHOOK_SECRETS",
  "CARD_FINGERPRINT_KEY"
] as const
type SecretName = (typeof GENERATED_SECRETS)[number]

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

// 32 random bytes as base64url: 43 ASCII characters, so 43 UTF-8 bytes, above the 32-byte minimum.
const generate = () => randomBytes(32).toString("base64url")

/** The file's secrets, or `undefined` when there is no file yet. */
const readSecrets = (path: string): Record<string, string> | undefined =>
  existsSync(path) ? Schema.decodeUnknownSync(SecretsFile)(readFileSync(path, "utf8")) : undefined

/**
 * Loads `DATA_DIR/dev-secrets.json`, adds those of `needed` (the secrets the environment does not
 * set) it lacks, and writes it back with mode 0600; a secret the environment sets is never
 * generated, and when the file already has every needed one nothing is written.
 * Two processes starting together on a fresh DATA_DIR must agree on one set of secrets, so the
 * file is written to a private temporary name and linked into place only if nobody else has done
 * so first (link fails on an existing name); the loser reads the winner's file. Whether to link or
 * to replace is decided by what was read, never by looking again: a process that found no file
 * and then saw the winner's appear used to replace it, and the winner had already handed out
 * tokens signed with the secret it wrote (a CI run caught it). Completing a partial file (one
 * copied in without every secret) replaces it, and two processes doing that at the same instant
 * can still each keep their own: only a hand-edited file gets there.
 * Returns the secrets and the names generated this time, so start-up can announce them.
 */
const loadOrCreate = (path: string, needed: ReadonlyArray<SecretName>) =>
  Effect.try({
    try: () => {
      for (let attempt = 0; ; attempt++) {
        const existing = readSecrets(path)
        const secrets: Record<string, string> = { ...(existing ?? {}) }
        const generated: Array<SecretName> = []
        for (const name of needed) {
          if (secrets[name] === undefined || secrets[name] === "") {
            secrets[name] = generate()
            generated.push(name)
          }
        }
        if (generated.length === 0) {
          // A file copied in with loose permissions is tightened: it holds signing keys.
          chmodSync(path, 0o600)
          return { secrets, generated }
        }
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
        const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`
        writeFileSync(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: "wx" })
        try {
          if (existing === undefined) {
            // No file when read: create it only if still nobody has (EEXIST: read theirs).
            linkSync(temporary, path)
          } else {
            // Completing a partial file: replace it atomically.
            renameSync(temporary, path)
          }
          return { secrets, generated }
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 3) throw error
        } finally {
          rmSync(temporary, { force: true })
        }
      }
    },
    catch: (cause) => new DevSecretsError({ path, cause })
  })

/**
 * Where unset secrets come from. In production (`NODE_ENV=production`) nothing is generated: start-up
 * fails naming every missing or too short secret and every other unsafe setting (see
 * ProductionConfig.productionProblems). Elsewhere an unset secret is read from (or generated into)
 * `DATA_DIR/dev-secrets.json`; a configured value always wins because the file is only a fallback.
 * Only unset secrets are generated and announced; with all four set the file is not touched.
 */
export const layer = Layer.unwrap(
  Effect.gen(function* () {
    const production = yield* isProduction
    if (production) {
      yield* checkProduction
      return Layer.empty
    }
    const unset: Array<SecretName> = []
    for (const name of GENERATED_SECRETS) {
      if (!(yield* isSet(name))) unset.push(name)
    }
    // Every secret configured: the file would hold nothing that is used, so it is neither read
    // nor written.
    if (unset.length === 0) return Layer.empty
    const dataDir = yield* Config.String("DATA_DIR").pipe(Config.withDefault("./.data"))
    const path = resolve(dataDir, "dev-secrets.json")
    const { secrets, generated } = yield* loadOrCreate(path, unset)
    if (generated.length > 0) {
      yield* Effect.logWarning(`Generated development secrets ${generated.join(", ")} in ${path} (not for production)`)
    }
    if (unset.length > 0) {
      yield* Effect.logInfo(`Using development secrets from ${path} for ${unset.join(", ")}`)
    }
    return ConfigProvider.layerAdd(ConfigProvider.fromUnknown(secrets))
  })
)
