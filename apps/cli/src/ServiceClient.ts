import { jwtSettings } from "@payments-gaming/adapters/auth/JwtConfig"
import { Api } from "@payments-gaming/api/Api"
import { InternalKey } from "@payments-gaming/api/middleware/InternalKey"
import { Header } from "@payments-gaming/api/Paths"
import { Config, Data, Effect, Predicate, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientError, HttpClientRequest } from "effect/http"
import { HttpApiClient, HttpApiMiddleware } from "effect/http-api"
import { UntrustedService, verifyService } from "./Backend.ts"

/** The running service refused the command (`status` its answer), or could not be reached (no `status`). */
export class ServiceCallFailed extends Data.TaggedError("ServiceCallFailed")<{
  readonly message: string
  readonly status?: number
}> {}

/**
 * Every request carries a short-lived admin token the CLI mints itself from the same
 * AUTH_JWT_SECRET (the shared development secrets), so the user does nothing special. Nothing is
 * minted nor sent unless `baseUrl` is, at that moment, the trusted owner of DATA_DIR (Backend.ts).
 */
const asAdmin = (baseUrl: string, sub: string) =>
  HttpClient.mapRequestEffect((request: HttpClientRequest.HttpClientRequest) =>
    Effect.gen(function* () {
      yield* verifyService(baseUrl)
      // Loaded when a call is made: jose is not needed by --help nor by the commands on the database.
      const { mint } = yield* Effect.promise(() => import("@payments-gaming/adapters/auth/JwtIssuer"))
      const token = yield* mint(yield* jwtSettings, { sub, roles: ["admin"], ttlSeconds: 300 })
      return HttpClientRequest.bearerToken(request, token)
    })
  )

/** INTERNAL_API_KEY, given only to the endpoints the API guards with it (the debug push). */
const internalKey = HttpApiMiddleware.layerClient(
  InternalKey,
  Effect.map(
    Config.Redacted("INTERNAL_API_KEY"),
    (key): HttpApiMiddleware.HttpApiMiddlewareClient<unknown, never, never> =>
      ({ next, request }) =>
        next(HttpClientRequest.setHeader(request, Header.internalKey, Redacted.value(key)))
  )
)

/** The subject of the CLI's tokens, unless a command names the operator (a reconciliation's `resolvedBy`). */
const CLI_SUBJECT = "cli"

const makeClient = (baseUrl: string, sub: string = CLI_SUBJECT) =>
  Effect.gen(function* () {
    const httpClient = (yield* HttpClient.HttpClient).pipe(asAdmin(baseUrl, sub))
    return yield* HttpApiClient.makeWith(Api, {
      httpClient,
      baseUrl,
      transformResponse: (effect) => Effect.timeout(effect, "30 seconds")
    })
  })

/** The service's API as the CLI calls it: typed from the contract (packages/api), as an administrator. */
export type ServiceApi = Effect.Success<ReturnType<typeof makeClient>>

const statusOf = (error: object): number | undefined =>
  "status" in error && typeof error.status === "number" ? error.status : undefined

/** What the service said, read from an answer the contract does not declare (429, 500, 503). */
const answerOf = (error: HttpClientError.HttpClientError) =>
  Effect.gen(function* () {
    const response = error.response
    if (response === undefined) return undefined
    const body = yield* Effect.orElseSucceed(response.json, () => undefined)
    const message =
      Predicate.isObject(body) && "message" in body && typeof body.message === "string" ? body.message : undefined
    return { status: response.status, message: message ?? `HTTP ${response.status}` }
  })

const failure = (
  baseUrl: string,
  error: unknown
): Effect.Effect<ServiceCallFailed | UntrustedService | Config.ConfigError> =>
  Effect.gen(function* () {
    // Refused before anything was sent: reported as it is.
    if (error instanceof UntrustedService || error instanceof Config.ConfigError) return error
    if (HttpClientError.isHttpClientError(error)) {
      const answer = yield* answerOf(error)
      if (answer !== undefined) {
        return new ServiceCallFailed({ message: `${answer.message} (HTTP ${answer.status})`, status: answer.status })
      }
      const reason = error.reason.cause instanceof Error ? error.reason.cause.message : error.message
      return new ServiceCallFailed({
        message: `the service at ${baseUrl} owns the database but cannot be reached: ${reason}`
      })
    }
    if (Predicate.isTagged(error, "TimeoutError")) {
      return new ServiceCallFailed({
        message: `the service at ${baseUrl} owns the database but cannot be reached: no answer within 30 seconds`
      })
    }
    // An error the contract declares (400, 404, 409…): its envelope's message and status.
    const status = Predicate.isObject(error) ? statusOf(error) : undefined
    if (status !== undefined && Predicate.isObject(error) && "message" in error && typeof error.message === "string") {
      return new ServiceCallFailed({ message: `${error.message} (HTTP ${status})`, status })
    }
    return yield* Effect.die(error)
  })

/**
 * Calls the service that owns the embedded database with the contract's typed client. An answer
 * outside 2xx fails with the service's own message and status; an answer that does not match the
 * contract is a defect.
 */
export const call = <A, E>(
  baseUrl: string,
  use: (api: ServiceApi) => Effect.Effect<A, E>,
  options: {
    /** The token's `sub`: who the service records as acting (default `cli`). */
    readonly sub?: string | undefined
  } = {}
) =>
  makeClient(baseUrl, options.sub).pipe(
    Effect.flatMap(use),
    Effect.catch((error) => Effect.flatMap(failure(baseUrl, error), Effect.fail)),
    Effect.provide(internalKey),
    Effect.provide(FetchHttpClient.layer),
    // The verified service answers itself; a redirect would carry the token elsewhere.
    Effect.provideService(FetchHttpClient.RequestInit, { redirect: "error" })
  )
