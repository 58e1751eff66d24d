import { Effect } from "effect"
import { startOwnServer } from "../../support/TestServer.ts"

export const ENVELOPE_KEYS = ["timestamp", "status", "success", "message", "data"]
export const REDUCED_KEYS = ["status", "message", "data"]

/** `count` requests one after the other; their statuses in order. */
export const statuses = (count: number, send: Effect.Effect<{ readonly status: number }>) =>
  Effect.forEach(Array.from({ length: count }), () => Effect.map(send, (response) => response.status))

/** The Retry-After header as whole seconds; fails the test unless it is a positive integer. */
export const retryAfterSeconds = (headers: Headers): number => {
  const value = headers.get("retry-after") ?? ""
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`Retry-After is not a positive integer: "${value}"`)
  return Number(value)
}

/**
 * A server of its own limiting `perIp` requests per address and `perUser` per user (0: off) per
 * `window` (the default window when not given).
 */
export const limitedServer = (perIp: string, perUser: string, window?: string) =>
  startOwnServer({
    RATE_LIMIT_PER_IP: perIp,
    RATE_LIMIT_PER_USER: perUser,
    ...(window === undefined ? {} : { RATE_LIMIT_WINDOW: window })
  })
