import { HttpApi, type HttpApiGroup } from "effect/http-api"
import { PROVIDER_SIGNATURE_SCHEME } from "./OpenApiDocument.ts"
import { EnvelopeStyle, policyOf, RateLimited, ReadsRawBody } from "./RoutePolicy.ts"

/**
 * What the generated OpenAPI document cannot know from the endpoint schemas: answers the
 * middleware gives on any route (413, 415, 429, 500, 503), the webhook's reduced error envelope,
 * and its signature header. Applied as OpenAPI transforms (Api.ts, WebhookApi.ts), so
 * `/openapi.json` tells an integrator every status the service can answer. Which answers a route
 * can give is read from its route policies (RoutePolicy.ts), as the middleware reads them.
 */

// The spec is plain JSON; the transform hook types it as such.
// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is arbitrary JSON
type Json = Record<string, any>

const issues = {
  anyOf: [
    {
      type: "array",
      items: {
        type: "object",
        properties: { path: { type: "string" }, message: { type: "string" } },
        required: ["path", "message"],
        additionalProperties: false
      }
    },
    { type: "null" }
  ]
}

/** CONTRACT §2's error envelope, as the response middleware writes it on every route but the webhook. */
export const ERROR_ENVELOPE = "ErrorEnvelope"
const errorEnvelope = {
  type: "object",
  description:
    "The error envelope. `timestamp` is epoch milliseconds as a string, or a local date-time under /v1/gaming/trivia/; `errors` only on a 400 from validation.",
  properties: {
    timestamp: { type: "string" },
    status: { type: "integer" },
    success: { type: "boolean", enum: [false] },
    message: { type: "string" },
    data: { type: "null" },
    errors: issues
  },
  required: ["timestamp", "status", "success", "message", "data"],
  additionalProperties: false
}

/** The webhook's reduced error envelope: no timestamp, no success flag. */
export const REDUCED_ERROR_ENVELOPE = "ReducedErrorEnvelope"
const reducedErrorEnvelope = {
  type: "object",
  description: "The webhook's reduced envelope; `errors` only on a 400 for a payload that does not decode.",
  properties: { status: { type: "integer" }, message: { type: "string" }, data: { type: "null" }, errors: issues },
  required: ["status", "message", "data"],
  additionalProperties: false
}

const answer = (description: string, schema: string) => ({
  description,
  content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } }
})

const COMMON = {
  413: "Payload Too Large: the body is over 256 KiB",
  415: "Unsupported Media Type: a body that is not application/json",
  429: "Too Many Requests: over the per-address or per-user limit; `Retry-After` gives the seconds to wait",
  500: "Internal Server Error: an unexpected failure (logged with the request id; the message is generic)",
  503: "Service Unavailable: the database is unreachable or gave up on the request's statement (a row held by another session for 2 s, a statement over 10 s), or no answer within the 15 s request deadline; `Retry-After` gives the seconds to wait (on /readyz: the database is not reachable, no `Retry-After`)"
} as const

const METHODS = ["get", "put", "post", "delete", "patch"] as const

interface OperationPolicies {
  readonly reduced: boolean
  readonly readsRawBody: boolean
  readonly rateLimited: boolean
}

/** The policies of every operation of `api`, by OpenAPI method and path (`put /v1/…/{challengeId}`). */
const operationPolicies = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
) => {
  const policies = new Map<string, OperationPolicies>()
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: (route) => {
      const path = route.endpoint.path.replace(/:(\w+)/g, "{$1}")
      policies.set(`${route.endpoint.method.toLowerCase()} ${path}`, {
        reduced: policyOf(route, EnvelopeStyle) === "reduced",
        readsRawBody: policyOf(route, ReadsRawBody),
        rateLimited: policyOf(route, RateLimited) !== "operational"
      })
    }
  })
  return policies
}

const DEFAULT_POLICIES: OperationPolicies = { reduced: false, readsRawBody: false, rateLimited: true }

/**
 * Adds the answers any route of `api` can give to every operation, and the two error envelopes to
 * the components. Called when the document is generated (`api` is the API being documented).
 */
export const documentCommonResponses = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  spec: Json
): Json => {
  const policies = operationPolicies(api)
  const paths: Json = {}
  for (const [path, item] of Object.entries<Json>(spec.paths ?? {})) {
    const updated: Json = { ...item }
    for (const method of METHODS) {
      const operation: Json | undefined = item[method]
      if (operation === undefined) continue
      const policy = policies.get(`${method} ${path}`) ?? DEFAULT_POLICIES
      const envelope = policy.reduced ? REDUCED_ERROR_ENVELOPE : ERROR_ENVELOPE
      const statuses: Array<keyof typeof COMMON> = []
      // A route that reads its raw bytes itself never has its Content-Type refused (no 415).
      if (operation.requestBody !== undefined) statuses.push(413, ...(policy.readsRawBody ? [] : [415 as const]))
      if (policy.rateLimited) statuses.push(429)
      statuses.push(500, 503)
      const responses: Json = { ...operation.responses }
      for (const status of statuses) responses[status] ??= answer(COMMON[status], envelope)
      updated[method] = { ...operation, responses }
    }
    paths[path] = updated
  }
  return {
    ...spec,
    paths,
    components: {
      ...spec.components,
      schemas: {
        ...spec.components?.schemas,
        [ERROR_ENVELOPE]: errorEnvelope,
        [REDUCED_ERROR_ENVELOPE]: reducedErrorEnvelope
      }
    }
  }
}

/**
 * The webhook operation as it really answers: its error statuses in the reduced envelope (the
 * endpoint's error schemas describe the full one), and the signature it requires, declared as the
 * `providerSignature` security scheme (OpenApiDocument.ts) so that API tools send it. The handler
 * checks it itself, over the raw bytes, so no middleware declares it.
 */
export const documentWebhook = (operation: Json): Json => {
  const responses: Json = {}
  for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
    responses[status] =
      Number(status) >= 400 ? answer(response.description ?? status, REDUCED_ERROR_ENVELOPE) : response
  }
  return { ...operation, security: [{ [PROVIDER_SIGNATURE_SCHEME]: [] }], responses }
}
