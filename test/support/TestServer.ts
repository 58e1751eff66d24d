import { NodeHttpServer } from "@effect/platform-node"
import { layer } from "@effect/vitest"
import { TestDatabase } from "@payments-gaming/adapters/test/support/TestDatabase"
import { signWebhook, TEST_SECRETS } from "@payments-gaming/adapters/test/support/TestSecrets"
import { WEBHOOK_PATH } from "@payments-gaming/api/Paths"
import { HttpApp } from "@payments-gaming/http"
import { createServer } from "@payments-gaming/http/NodeServer"
import { makeLocalFormatter } from "@payments-gaming/http/ResponseTime"
import { ConfigProvider, type Duration, Effect, Layer, Logger } from "effect"
import { HttpServer } from "effect/http"

export { signWebhook, TEST_SECRETS, tokenFor } from "@payments-gaming/adapters/test/support/TestSecrets"

/** The in-process server's configuration: the suite's secrets and fixed settings. */
export const TEST_ENV = {
  ...TEST_SECRETS,
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
  TestServerOn(overrides).pipe(Layer.provideMerge(TestDatabase))

/**
 * `TestServer` on a database the caller provides, so that several servers (configured differently,
 * e.g. in two time zones) can share one database.
 */
export const TestServerOn = (overrides: Record<string, string> = {}) =>
  HttpApp.pipe(
    Layer.provideMerge(
      NodeHttpServer.layer(() => createServer({ formatLocal: makeLocalFormatter(TEST_ENV.APP_TIMEZONE) }), {
        port: 0,
        host: "127.0.0.1"
      })
    ),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ ...TEST_ENV, ...overrides })))
  )

/**
 * A server of its own for one test, on a fresh database: each test sets different limits, and sharing
 * one would let the counts of one test leak into the next (every request comes from 127.0.0.1).
 * `Layer.fresh` matters when a test starts two: without it the second would reuse the first's app.
 */
export const startOwnServer = (overrides: Record<string, string>) =>
  Effect.map(Layer.build(Layer.fresh(TestServer(overrides))), (context) => ({
    request: (path: string, options?: RequestOptions) => request(path, options).pipe(Effect.provideContext(context))
  }))

export type OwnServer = Effect.Success<ReturnType<typeof startOwnServer>>

/**
 * `layer` of one TestServer for the tests of a block, started within `timeout`; `loggers`, when
 * given, replace the default logger so a test can read what the server logged.
 */
export const withTestServer = (
  timeout: Duration.Input,
  loggers: ReadonlyArray<Logger.Logger<unknown, unknown>> = [],
  overrides: Record<string, string> = {}
) =>
  layer(
    loggers.length === 0 ? TestServer(overrides) : TestServer(overrides).pipe(Layer.provide(Logger.layer(loggers))),
    { timeout, excludeTestServices: true }
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

/**
 * POST of `body`, exactly these bytes, to the webhook as the provider sends it: signed with the
 * suite's current secret unless `signature` is given (`null` sends no signature header at all).
 */
export const deliverWebhook = (body: string | Uint8Array, signature: string | null = signWebhook(body)) =>
  request(WEBHOOK_PATH, {
    method: "POST",
    rawBody: body,
    headers: {
      "content-type": "application/json",
      ...(signature === null ? {} : { "x-provider-signature": signature })
    }
  })
