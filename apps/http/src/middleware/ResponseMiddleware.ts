import { randomUUID } from "node:crypto"
import { databaseUnavailableIn } from "@payments-gaming/adapters/postgres/DatabaseUnavailable"
import { Header } from "@payments-gaming/api/Paths"
import type { EnvelopeStyle } from "@payments-gaming/api/RoutePolicy"
import { Cause, Clock, Context, Duration, Effect, LogLevel, Metric, References, type Types } from "effect"
import { Headers, HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { ResponseTime } from "../ResponseTime.ts"
import { envelopeOfUnrouted } from "../ServiceRoutes.ts"
import { factsOf, type RouteFacts, UNMATCHED } from "./MatchedRoute.ts"
import { RateLimit } from "./RateLimit.ts"

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/
// Node hands header names over in lower case.
const REQUEST_ID_HEADER = Header.requestId.toLowerCase()

/**
 * How long the service may take over a request before it is answered 503. A client slow to send
 * its request is cut earlier, with a 408, by the server's own 10 s limit (NodeServer.ts).
 */
export const REQUEST_DEADLINE = "15 seconds"

/**
 * Seconds a client should wait before retrying a 503: the database came back, or a failover ended,
 * within that in every fault test (docs/operations.md §8), and sooner would only add load to a
 * database that is recovering.
 */
export const RETRY_AFTER_SECONDS = 5

const unavailable = () =>
  HttpServerResponse.jsonUnsafe(
    { message: "Service unavailable" },
    { status: 503, headers: { "retry-after": String(RETRY_AFTER_SECONDS) } }
  )

/**
 * A failure's answer: a 503 with `Retry-After` when all it failed on is the database being
 * unavailable (a dropped connection the unit of work could not retry, none to be had, or a
 * statement the server gave up on under the pipelined connections' lock and statement timeouts:
 * DatabaseUnavailable.ts), which is a condition to wait out, not a bug: one warning line, no
 * stack. Anything else is a 500 whose cause is logged in full under the request id.
 */
const failureResponse = (failure: Cause.Cause<unknown>) =>
  HttpServerError.causeResponse(failure).pipe(
    Effect.flatMap(([response, cause]) => {
      if (response.status < 500 || Cause.hasInterruptsOnly(cause)) return Effect.succeed(response)
      // Judged on the failure itself: the reported cause also carries the 500 chosen for it.
      const database = databaseUnavailableIn(failure)
      return database !== undefined
        ? Effect.as(Effect.logWarning(`Database unavailable, answered 503: ${database.message}`), unavailable())
        : Effect.as(Effect.logError("Unhandled failure", cause), response)
    })
  )

const DEADLINE_MILLIS = Duration.toMillis(Duration.fromInputUnsafe(REQUEST_DEADLINE))

/**
 * `handle`, answered with a 503 once it has run `REQUEST_DEADLINE` (a database that stopped
 * answering without closing its connections, say), instead of holding its client indefinitely.
 * The work runs in a child fiber that the deadline interrupts without waiting for: undoing it (the
 * rollback of its transaction) may itself wait on the hung database, and the answer must not. A
 * client that goes away still interrupts the work, its child.
 *
 * `startImmediately` runs the work in this turn up to its first suspension instead of scheduling
 * its start, and work that finished in that turn (a 404, a cached answer) is answered at once.
 * Otherwise one timer and one observer of the work decide, in `Effect.callback`:
 * `Effect.timeoutOrElse` over a join would race the join against a sleep, two more fibers on every
 * request, which cost about a tenth of a `GET /v1/spin-and-win`'s CPU (issue 16). The timer is
 * Node's, as under the default `Clock.sleep`; an interrupted request clears it and stops observing.
 */
const withDeadline = <E, R>(handle: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.flatMap(Effect.forkChild(handle, { startImmediately: true }), (work) => {
    const done = work.pollUnsafe()
    if (done !== undefined) return done
    return Effect.callback<HttpServerResponse.HttpServerResponse, E>((resume) => {
      const timer = setTimeout(() => {
        work.interruptUnsafe()
        resume(Effect.succeed(unavailable()))
      }, DEADLINE_MILLIS)
      const stopObserving = work.addObserver((exit) => {
        clearTimeout(timer)
        resume(exit)
      })
      return Effect.sync(() => {
        clearTimeout(timer)
        stopObserving()
      })
    })
  })

const requests = Metric.counter("http_requests_total", { description: "HTTP requests by method, route and status" })
const duration = Metric.histogram("http_request_duration_seconds", {
  description: "HTTP request latency by method, route and status",
  boundaries: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
})

const seriesFor = (attributes: Record<string, string>) => ({
  requests: Metric.withAttributes(requests, attributes),
  duration: Metric.withAttributes(duration, attributes)
})
type Series = ReturnType<typeof seriesFor>

const defaultMessages: Record<number, string> = {
  400: "Bad request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict",
  408: "Request timeout",
  413: "Request body exceeds the 256 KiB limit",
  415: "Content-Type must be application/json",
  429: "Too many requests",
  500: "Internal server error",
  503: "Service unavailable"
}
const messageFor = (status: number) => defaultMessages[status] ?? (status >= 500 ? "Internal server error" : "Error")

/**
 * What the access log says of a URL: its path and the names of its query parameters, never their
 * values (`/v1/user/cards?limit&offset`), because a query can carry tokens and personal data. The
 * names are written as the client sent them (still percent-encoded), each once.
 */
export const logTarget = (url: string): string => {
  const mark = url.indexOf("?")
  if (mark === -1) return url
  const names = new Set<string>()
  for (const pair of url.slice(mark + 1).split("&")) {
    const equals = pair.indexOf("=")
    const name = equals === -1 ? pair : pair.slice(0, equals)
    if (name !== "") names.add(name)
  }
  return names.size === 0 ? url.slice(0, mark) : `${url.slice(0, mark)}?${[...names].join("&")}`
}

/**
 * Headers every answer carries: `nosniff`, so a browser never runs a JSON body (a reference or a
 * raw webhook body an attacker wrote) as HTML or script; and `no-store` unless the route chose its
 * own caching (`/docs`), so no browser or proxy keeps a card, a statement or a raw webhook body
 * after the request (issue 34). Every answer, not only the authenticated ones: a 401 or a 404 says
 * nothing worth keeping, and one rule is one the next route cannot miss.
 */
export const withSafetyHeaders = (response: HttpServerResponse.HttpServerResponse) => {
  const nosniff = HttpServerResponse.setHeader(response, "x-content-type-options", "nosniff")
  return response.headers["cache-control"] === undefined
    ? HttpServerResponse.setHeader(nosniff, "cache-control", "no-store")
    : nosniff
}

const decoder = new TextDecoder()
/** The JSON object an error response already carries (our ApiErrors), if any. */
const bodyObject = (response: HttpServerResponse.HttpServerResponse): Record<string, unknown> => {
  const body = response.body
  if (body._tag !== "Uint8Array" || !body.contentType.includes("json")) return {}
  try {
    const parsed: unknown = JSON.parse(decoder.decode(body.body))
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

/**
 * Gives every error response the envelope of CONTRACT §2 in the route's timestamp style, whoever
 * produced it: our handlers, the router (404), the body reader (413), the decoder (415) or a defect
 * (500, whose message is always generic: internals never reach a client).
 */
const envelopeError = Effect.fnUntraced(function* (
  response: HttpServerResponse.HttpServerResponse,
  style: EnvelopeStyle,
  time: ResponseTime["Service"]
) {
  const status = response.status
  const existing = bodyObject(response)
  const message =
    status < 500 && typeof existing.message === "string" && existing.message !== ""
      ? existing.message
      : messageFor(status)
  const errors = status === 400 && Array.isArray(existing.errors) ? { errors: existing.errors } : {}
  const body =
    style === "reduced"
      ? { status, message, data: null, ...errors }
      : {
          timestamp: yield* style === "local" ? time.local : time.epoch,
          status,
          success: false,
          message,
          data: null,
          ...errors
        }
  // The original Content-Type (a 415 arrives as text/plain) must not override the JSON one.
  return HttpServerResponse.jsonUnsafe(body, { status, headers: Headers.remove(response.headers, "content-type") })
})

/**
 * The outermost middleware: request id (accepted from `X-Request-Id` when sane, else generated,
 * echoed back and attached to every log line), error envelopes, one access-log line (query values
 * left out: see logTarget), the 500's
 * cause logged with the request id (a database outage is a 503 instead: see failureResponse), the
 * Prometheus request metrics, and `nosniff` and `no-store` on every answer (withSafetyHeaders).
 */
export const layer = HttpRouter.middleware(
  Effect.gen(function* () {
    const time = yield* ResponseTime
    const rateLimit = yield* RateLimit
    // A metric with attributes works out its series key on first use and keeps it, so each
    // (method, route, status) gets its handles once instead of on every request. Routes are the
    // routes' patterns (unmatched paths share one label), so the map stays small.
    const known = new Map<string, Series>()
    const seriesOf = (method: string, route: string, status: number): Series => {
      const key = `${method} ${status} ${route}`
      let found = known.get(key)
      if (found === undefined) {
        found = seriesFor({ method, route, status: String(status) })
        known.set(key, found)
      }
      return found
    }
    // Counted, timed and logged inside the request's log annotation (one annotation per request).
    // The access line is built only when INFO is on: at WARN a request formats nothing for it.
    // One step of the fiber for all of it, where an Effect per read and per update took ten: it
    // runs on every request (issue 16). The updates are `Metric.update`'s own, without its wrapping.
    const record = (
      method: string,
      url: string,
      label: string,
      response: HttpServerResponse.HttpServerResponse,
      started: bigint
    ) =>
      Effect.withFiber((fiber) => {
        const seconds = Number(fiber.getRef(Clock.Clock).currentTimeNanosUnsafe() - started) / 1e9
        const series = seriesOf(method, label, response.status)
        series.requests.updateUnsafe(1, fiber.context)
        series.duration.updateUnsafe(seconds, fiber.context)
        // As LogLevel.isEnabled("Info"): off when the minimum is above INFO.
        if (LogLevel.isGreaterThan(fiber.getRef(References.MinimumLogLevel), "Info")) return Effect.succeed(response)
        return Effect.as(
          Effect.logInfo(`${method} ${logTarget(url)} ${response.status} ${(seconds * 1000).toFixed(1)}ms`),
          response
        )
      })
    return (app) =>
      // One step to read the request and the clock (issue 16: this runs on every request).
      Effect.withFiber((fiber) => {
        const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
        const incoming = request.headers[REQUEST_ID_HEADER]
        const requestId = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : randomUUID()
        const started = fiber.getRef(Clock.Clock).currentTimeNanosUnsafe()
        const url = request.url
        const finish = (route: RouteFacts, response: HttpServerResponse.HttpServerResponse) =>
          record(
            request.method,
            url,
            route.label,
            HttpServerResponse.setHeader(withSafetyHeaders(response), REQUEST_ID_HEADER, requestId),
            started
          )
        const answer = (route: RouteFacts) => (response: HttpServerResponse.HttpServerResponse) =>
          response.status >= 400
            ? Effect.flatMap(envelopeError(response, route.envelope, time), (enveloped) => finish(route, enveloped))
            : finish(route, response)
        return withDeadline(app).pipe(
          Effect.catchCause(failureResponse),
          Effect.flatMap((response) => {
            // The route that answered recorded its policies (MatchedRoute.ts), and applied its
            // per-address limit before its body was read. A request no route matched (every
            // group's unknown paths have one: ServiceRoutes.ts) is one whose path the router could
            // not read (a malformed escape): counted against its address here, after the router's
            // cheap 404, in the envelope its path's group space gives, as for a parser error.
            const route = factsOf(request)
            if (route !== undefined) return answer(route)(response)
            const unrouted = { ...UNMATCHED, envelope: envelopeOfUnrouted(url) }
            return Effect.flatMap(rateLimit.perIp(unrouted.rateLimit, Effect.succeed(response)), answer(unrouted))
          }),
          Effect.annotateLogs({ requestId })
        )
        // Every failure is turned into a response above; the router's types expect a middleware to
        // pass unknown errors on, so the (empty) error channel is widened back to `unhandled`.
      }) as Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest>
  }),
  { global: true }
)
