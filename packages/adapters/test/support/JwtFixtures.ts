import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Duration, Effect, Option, Redacted } from "effect"
import * as Jose from "jose"
import { DEFAULT_MAX_TOKEN_TTL, type JwtSettings } from "../../src/auth/JwtConfig.ts"
import { TEST_SECRETS } from "./TestSecrets.ts"

/** The suite's HS256 secret. */
export const SECRET = TEST_SECRETS.AUTH_JWT_SECRET

export interface SettingsInput {
  readonly secret?: string
  readonly jwksUrl?: URL
  readonly issuer?: string
  readonly audience?: string
  /** AUTH_MAX_TOKEN_TTL; its default (24 hours) when left out. */
  readonly maxTokenTtl?: Duration.Input
}

export const settingsOf = (input: SettingsInput): JwtSettings => ({
  secret: Option.map(Option.fromUndefinedOr(input.secret), Redacted.make),
  jwksUrl: Option.fromUndefinedOr(input.jwksUrl),
  issuer: Option.fromUndefinedOr(input.issuer),
  audience: Option.fromUndefinedOr(input.audience),
  maxTokenTtl: input.maxTokenTtl === undefined ? DEFAULT_MAX_TOKEN_TTL : Duration.fromInputUnsafe(input.maxTokenTtl)
})

export const nowSeconds = () => Math.floor(Date.now() / 1000)

export const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

export interface SignOptions {
  readonly claims?: Record<string, unknown>
  readonly sub?: string
  /** Seconds since the epoch; `null` leaves `exp` out. */
  readonly exp?: number | null
  /** Seconds since the epoch; now by default, `null` leaves `iat` out. */
  readonly iat?: number | null
  readonly issuer?: string
  readonly audience?: string
  readonly header?: Jose.JWTHeaderParameters
}

/** A token signed by jose itself, with the claims a test asks for and a one-hour expiry by default. */
export const sign = (key: Uint8Array | Jose.CryptoKey, options: SignOptions = {}) =>
  Effect.promise(() => {
    let builder = new Jose.SignJWT(options.claims ?? { roles: [] }).setProtectedHeader(
      options.header ?? { alg: "HS256", typ: "JWT" }
    )
    if (options.iat !== null) builder = builder.setIssuedAt(options.iat ?? nowSeconds())
    if (options.sub !== undefined) builder = builder.setSubject(options.sub)
    if (options.exp !== null) builder = builder.setExpirationTime(options.exp ?? nowSeconds() + 3600)
    if (options.issuer !== undefined) builder = builder.setIssuer(options.issuer)
    if (options.audience !== undefined) builder = builder.setAudience(options.audience)
    return builder.sign(key)
  })

export const hmacKey = (secret: string) => new TextEncoder().encode(secret)

export interface Jwks {
  readonly url: URL
  readonly rsa: Jose.GenerateKeyPairResult
  readonly ec: Jose.GenerateKeyPairResult
}

/**
 * An RS256 and an ES256 key pair whose public halves are served as a JWKS by a real HTTP server on
 * 127.0.0.1, closed with the scope.
 */
export const jwksServer = Effect.acquireRelease(
  Effect.promise(async () => {
    const rsa = await Jose.generateKeyPair("RS256", { extractable: true })
    const ec = await Jose.generateKeyPair("ES256", { extractable: true })
    const keys = [
      { ...(await Jose.exportJWK(rsa.publicKey)), kid: "rsa-1", alg: "RS256", use: "sig" },
      { ...(await Jose.exportJWK(ec.publicKey)), kid: "ec-1", alg: "ES256", use: "sig" }
    ]
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({ keys }))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as AddressInfo
    return { server, jwks: { url: new URL(`http://127.0.0.1:${port}/.well-known/jwks.json`), rsa, ec } }
  }),
  ({ server }) =>
    Effect.promise(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
    )
).pipe(Effect.map(({ jwks }): Jwks => jwks))
