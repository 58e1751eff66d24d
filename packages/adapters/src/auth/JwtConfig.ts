import { Config, type Option, type Redacted, Schema } from "effect"

export interface JwtSettings {
  /** HS256 key; used when no JWKS URL is set. */
  readonly secret: Option.Option<Redacted.Redacted<string>>
  /** Verify asymmetric tokens (RS256, ES256, EdDSA) against this key set instead. */
  readonly jwksUrl: Option.Option<URL>
  readonly issuer: Option.Option<string>
  readonly audience: Option.Option<string>
}

const MIN_SECRET_BYTES = 32

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

export const jwtSettings: Config.Config<JwtSettings> = Config.all({
  secret,
  jwksUrl: Config.URL("AUTH_JWKS_URL").pipe(Config.option),
  issuer: Config.String("AUTH_ISSUER").pipe(Config.option),
  audience: Config.String("AUTH_AUDIENCE").pipe(Config.option)
})
