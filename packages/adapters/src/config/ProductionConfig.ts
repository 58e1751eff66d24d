import { Config, Effect, Option, Schema } from "effect"
import { audienceConfig, issuerConfig, MIN_SECRET_BYTES } from "../auth/JwtConfig.ts"

/** A production start refused; apps/http/src/StartFailure.ts logs its message as one line, no stack. */
export class UnsafeConfiguration extends Schema.TaggedError<UnsafeConfiguration>()("UnsafeConfiguration", {
  problems: Schema.Array(Schema.String)
}) {
  override get message() {
    return `NODE_ENV=production refuses to start: ${this.problems.join("; ")}`
  }
}

const optionalString = (name: string) =>
  Config.String(name).pipe(Config.option, Config.map(Option.filter((value) => value.trim() !== "")))

const listed = (names: ReadonlyArray<string>) => `${names.join(", ")} ${names.length === 1 ? "is" : "are"}`

const isShort = (value: string) => Buffer.byteLength(value, "utf8") < MIN_SECRET_BYTES

/**
 * Everything that makes a production start unsafe, one sentence each (never a secret's value nor its
 * length): an unset secret, a secret shorter than {@link MIN_SECRET_BYTES} UTF-8 bytes (each entry of
 * `WEBHOOK_SECRETS`), JWKS verification without an issuer and an audience to hold tokens to, and no
 * `DATABASE_URL` (the embedded database has no authentication, only its owner's file permissions, and serves one process)
 * unless `EMBEDDED_DATABASE=allow` says it is meant. Empty when the configuration is safe.
 */
export const productionProblems: Effect.Effect<Array<string>, Config.ConfigError> = Effect.gen(function* () {
  const problems: Array<string> = []
  const missing: Array<string> = []
  const short: Array<string> = []

  const jwks = yield* optionalString("AUTH_JWKS_URL")
  for (const name of ["AUTH_JWT_SECRET", "INTERNAL_API_KEY", "WEBHOOK_SECRETS", "CARD_FINGERPRINT_KEY"]) {
    // Split as WebhookSignature.parseSecrets does: blanks around and between entries are ignored.
    const entries = Option.match(yield* optionalString(name), {
      onNone: () => [],
      onSome: (value) =>
        name === "WEBHOOK_SECRETS"
          ? value
              .split(",")
              .map((entry) => entry.trim())
              .filter((entry) => entry.length > 0)
          : [value]
    })
    if (entries.length === 0) {
      // With a JWKS the HS256 secret is not used, so it is not required; when given it must still be strong.
      if (!(name === "AUTH_JWT_SECRET" && Option.isSome(jwks))) missing.push(name)
      continue
    }
    const weak = entries.flatMap((entry, index) => (isShort(entry) ? [index + 1] : []))
    if (weak.length === 0) continue
    short.push(
      entries.length === 1
        ? name
        : `${name} (entr${weak.length === 1 ? "y" : "ies"} ${weak.join(", ")} of ${entries.length})`
    )
  }

  if (missing.length > 0) problems.push(`${listed(missing)} not set`)
  if (short.length > 0) problems.push(`${listed(short)} shorter than ${MIN_SECRET_BYTES} bytes`)

  if (Option.isSome(jwks)) {
    const unset = [
      ...(Option.isNone(yield* issuerConfig) ? ["AUTH_ISSUER"] : []),
      ...(Option.isNone(yield* audienceConfig) ? ["AUTH_AUDIENCE"] : [])
    ]
    if (unset.length > 0) problems.push(`AUTH_JWKS_URL is set without ${unset.join(" and ")}`)
  }

  const databaseUrl = yield* optionalString("DATABASE_URL")
  const embedded = yield* Config.String("EMBEDDED_DATABASE").pipe(Config.withDefault(""))
  if (Option.isNone(databaseUrl) && embedded.trim().toLowerCase() !== "allow") {
    problems.push(
      "DATABASE_URL is not set (the embedded database is unauthenticated and single-process; set EMBEDDED_DATABASE=allow to use it anyway)"
    )
  }
  return problems
})

/** Fails with every problem at once, so an operator fixes the deployment in one round. */
export const checkProduction: Effect.Effect<void, UnsafeConfiguration | Config.ConfigError> = Effect.flatMap(
  productionProblems,
  (problems) => (problems.length === 0 ? Effect.void : Effect.fail(new UnsafeConfiguration({ problems })))
)
