import { NodeHttpServer } from "@effect/platform-node"
import { HttpApp } from "@payments-gaming/http"
import { ConfigProvider, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import * as Jose from "jose"
import { createServer } from "../../apps/http/src/NodeServer.ts"
import { makeLocalFormatter } from "../../apps/http/src/ResponseTime.ts"
import { TestDatabase } from "./TestDatabase.ts"

/** Fixed secrets for the suite; a real server never sees these. */
export const TEST_ENV = {
  AUTH_JWT_SECRET: "test-only-jwt-secret-0123456789abcdef",
  INTERNAL_API_KEY: "test-only-internal-key",
  WEBHOOK_SECRETS: "test-webhook-secret-current,test-webhook-secret-previous",
  CARD_FINGERPRINT_KEY: "test-only-card-fingerprint-key-0123456789",
  APP_TIMEZONE: "Africa/Lagos",
  WHEEL_TIMEZONE: "Africa/Lagos",
  DEFAULT_CURRENCY: "NGN",
  LOG_LEVEL: "warn"
}

/**
 * The HTTP application on a real socket (127.0.0.1, a free port) over a fresh database, configured
 * from `TEST_ENV` plus `overrides`. Provides the HttpServer so tests can read its address.
 */
export const TestServer = (overrides: Record<string, string> = {}) =>
  HttpApp.pipe(
    Layer.provideMerge(
      NodeHttpServer.layer(() => createServer({ formatLocal: makeLocalFormatter(TEST_ENV.APP_TIMEZONE) }), {
        port: 0,
        host: "127.0.0.1"
      })
    ),
    Layer.provideMerge(TestDatabase),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ ...TEST_ENV, ...overrides })))
  )

export const baseUrl = Effect.map(HttpServer.HttpServer, (server) => HttpServer.formatAddress(server.address))

export interface TestResponse {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON bodies
  readonly json: any
}

export interface RequestOptions {
  readonly method?: string
  readonly body?: unknown
  readonly rawBody?: string | Uint8Array
  readonly headers?: Record<string, string>
  readonly token?: string
}

/** One real HTTP request with fetch; the body is parsed as JSON when it is JSON. */
export const request = (path: string, options: RequestOptions = {}) =>
  Effect.gen(function* () {
    const base = yield* baseUrl
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    let body: string | Uint8Array | undefined = options.rawBody
    if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers["content-type"] ??= "application/json"
    }
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, { method: options.method ?? "GET", headers, ...(body === undefined ? {} : { body }) })
    )
    const text = yield* Effect.promise(() => response.text())
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, text, json } as TestResponse
  })

/** A bearer token signed with the suite's HS256 secret. */
export const tokenFor = (sub: string, roles: ReadonlyArray<string> = [], ttlSeconds = 3600) =>
  Effect.promise(() =>
    new Jose.SignJWT({ roles: [...roles] })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
      .sign(new TextEncoder().encode(TEST_ENV.AUTH_JWT_SECRET))
  )
