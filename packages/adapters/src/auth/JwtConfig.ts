import { Config, ConfigProvider, Duration, Effect, Option, type Redacted, Schema } from "effect"

export interface JwtSettings {
  /** HS256 key; used when no JWKS URL is set. */
  readonly secret: Option.Option<Redacted.Redacted<string>>
  /** Verify asymmetric tokens (RS256, ES256, EdDSA) against this key set instead. */
  readonly jwksUrl: Option.Option<URL>
  readonly issuer: Option.Option<string>
  readonly audience: Option.Option<string>
  /** The longest a token may live: `exp` at most this long after `iat` (after now without `iat`). */
  readonly maxTokenTtl: Duration.Duration
}

/** The least a signing or HMAC key may hold, in UTF-8 bytes: HMAC-SHA256's own output size. */
export const MIN_SECRET_BYTES = 32

export const DEFAULT_MAX_TOKEN_TTL = Duration.hours(24)

const secret = Config.schema(
  Schema.Redacted(
    Schema.String.check(
      Schema.makeFilter(
        (value) => Buffer.byteLength(value, "utf8") >= MIN_SECRET_BYTES || `must be at least ${MIN_SECRET_BYTES} bytes`
      )
    )
  ),
  "AUTH_JWT_SECRET"
).pipe(Config.option)

/**
 * The first of `names` that is set to something other than blanks. CONTRACT §1 names the variables
 * `AUTH_ISSUER` and `AUTH_AUDIENCE`; the issue tracker wrote `AUTH_JWT_ISSUER`/`AUTH_JWT_AUDIENCE`,
 * accepted as aliases so a deployment written either way is checked. The contract's name wins.
 */
const firstSet = (...names: ReadonlyArray<string>): Config.Config<Option.Option<string>> =>
  Config.all(names.map((name) => Config.String(name).pipe(Config.option))).pipe(
    Config.map((values) => Option.firstSomeOf(values.map(Option.filter((value) => value.trim() !== ""))))
  )

export const issuerConfig = firstSet("AUTH_ISSUER", "AUTH_JWT_ISSUER")
export const audienceConfig = firstSet("AUTH_AUDIENCE", "AUTH_JWT_AUDIENCE")

/** `AUTH_MAX_TOKEN_TTL` (an Effect duration such as `24 hours` or `15 minutes`), default 24 hours. */
export const maxTokenTtlConfig: Config.Config<Duration.Duration> = Config.Duration("AUTH_MAX_TOKEN_TTL").pipe(
  Config.mapEffect((ttl) =>
    Duration.isFinite(ttl) && Duration.toSeconds(ttl) >= 1
      ? Effect.succeed(ttl)
      : Effect.fail(
          new Config.ConfigError(
            new ConfigProvider.SourceError({
              message: 'AUTH_MAX_TOKEN_TTL must be a duration of at least a second, such as "24 hours"'
            })
          )
        )
  ),
  Config.withDefault(DEFAULT_MAX_TOKEN_TTL)
)

export const jwtSettings: Config.Config<JwtSettings> = Config.all({
  secret,
  jwksUrl: Config.URL("AUTH_JWKS_URL").pipe(Config.option),
  issuer: issuerConfig,
  audience: audienceConfig,
  maxTokenTtl: maxTokenTtlConfig
})
