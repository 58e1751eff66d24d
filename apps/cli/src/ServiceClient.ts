import { jwtSettings } from "@payments-gaming/adapters/auth/JwtConfig"
import { Header } from "@payments-gaming/http/Paths"
import { Config, Data, Effect, Redacted } from "effect"
import { verifyService } from "./Backend.ts"

/** The running service refused the command (`status` its answer), or could not be reached (no `status`). */
export class ServiceCallFailed extends Data.TaggedError("ServiceCallFailed")<{
  readonly message: string
  readonly status?: number
}> {}

export interface ServiceAnswer {
  readonly status: number
  /** The envelope's `data` (or the whole body for the bare answers, such as the debug push). */
  readonly body: unknown
}

const messageOf = (body: unknown, status: number) =>
  typeof body === "object" && body !== null && "message" in body && typeof body.message === "string"
    ? body.message
    : `HTTP ${status}`

/**
 * Calls the service that owns the embedded database, as an administrator: the CLI mints itself a
 * short-lived admin token from the same AUTH_JWT_SECRET (the shared development secrets), so the
 * user does nothing special. `internalKey` adds the INTERNAL_API_KEY for the debug push. Nothing is
 * minted nor sent unless `baseUrl` is, at that moment, the trusted owner of DATA_DIR (Backend.ts).
 * An answer outside 2xx fails with the service's own message.
 */
export const call = (
  baseUrl: string,
  request: { readonly method: string; readonly path: string; readonly body?: unknown; readonly internalKey?: boolean }
) =>
  Effect.gen(function* () {
    yield* verifyService(baseUrl)
    const { mint } = yield* Effect.promise(() => import("@payments-gaming/adapters/auth/JwtIssuer"))
    const token = yield* mint(yield* jwtSettings, { sub: "cli", roles: ["admin"], ttlSeconds: 300 })
    const headers: Record<string, string> = { authorization: `Bearer ${token}` }
    if (request.body !== undefined) headers["content-type"] = "application/json"
    if (request.internalKey === true) {
      headers[Header.internalKey] = Redacted.value(yield* Config.Redacted("INTERNAL_API_KEY"))
    }
    const url = new URL(request.path, baseUrl).toString()
    const answer = yield* Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(url, {
          method: request.method,
          headers,
          ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
          // The verified service answers itself; a redirect would carry the token elsewhere.
          redirect: "error",
          signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)])
        })
        const text = await response.text()
        let body: unknown = text
        try {
          body = JSON.parse(text)
        } catch {
          // Not JSON: reported as text.
        }
        return { status: response.status, body }
      },
      catch: (error) =>
        new ServiceCallFailed({
          message: `the service at ${baseUrl} owns the database but cannot be reached: ${error instanceof Error ? error.message : String(error)}`
        })
    })
    if (answer.status < 200 || answer.status > 299) {
      return yield* new ServiceCallFailed({
        message: `${messageOf(answer.body, answer.status)} (HTTP ${answer.status})`,
        status: answer.status
      })
    }
    return answer satisfies ServiceAnswer
  })

/** The envelope's `data`. */
export const dataOf = (answer: ServiceAnswer): unknown =>
  typeof answer.body === "object" && answer.body !== null && "data" in answer.body ? answer.body.data : answer.body
