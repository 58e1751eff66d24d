import { Effect, Layer } from "effect"
import { type RequestOptions, request, TestServer } from "../support/TestServer.ts"

export const ENVELOPE_KEYS = ["timestamp", "status", "success", "message", "data"]
export const REDUCED_KEYS = ["status", "message", "data"]

/**
 * A server of its own for one test, on a fresh database: each test sets different limits, and sharing
 * one would let the counts of one test leak into the next (every request comes from 127.0.0.1).
 * `Layer.fresh` matters when a test starts two: without it the second would reuse the first's app.
 */
export const startServer = (overrides: Record<string, string>) =>
  Effect.map(Layer.build(Layer.fresh(TestServer(overrides))), (context) => ({
    request: (path: string, options?: RequestOptions) => request(path, options).pipe(Effect.provideContext(context))
  }))

export type Server = Effect.Success<ReturnType<typeof startServer>>

/** `count` requests one after the other; their statuses in order. */
export const statuses = (count: number, send: Effect.Effect<{ readonly status: number }>) =>
  Effect.forEach(Array.from({ length: count }), () => Effect.map(send, (response) => response.status))

/** The Retry-After header as whole seconds; fails the test unless it is a positive integer. */
export const retryAfterSeconds = (headers: Headers): number => {
  const value = headers.get("retry-after") ?? ""
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`Retry-After is not a positive integer: "${value}"`)
  return Number(value)
}
