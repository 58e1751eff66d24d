import { EXAMPLES } from "./OpenApiExamples.ts"
import { INTEGER_QUERY } from "./Paging.ts"
import { Header } from "./Paths.ts"

/**
 * What the generated document still lacks for an integrator's tools (Redocly's recommended rules,
 * Scalar's "Test Request", openapi-typescript): where to send requests, the webhook signature as a
 * security scheme, integer query parameters, the response headers the handlers and middleware set,
 * the card rules the domain checks after decoding, and an example of every request and answer.
 * Applied last, by the API's OpenAPI transform (Api.ts).
 */

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is arbitrary JSON
type Json = Record<string, any>

const METHODS = ["get", "put", "post", "delete", "patch"] as const

/** The webhook's signature, declared as an API key so that API tools ask for it and send it. */
export const PROVIDER_SIGNATURE_SCHEME = "providerSignature"
const providerSignatureScheme = {
  type: "apiKey",
  in: "header",
  name: Header.providerSignature,
  description:
    "Hex HMAC-SHA256 of the exact request body with one of WEBHOOK_SECRETS (either case; `npm run cli -- webhook sign <file>`). A missing or wrong signature is a 401, and nothing is stored."
}

const header = (description: string, schema: Json = { type: "string" }) => ({ description, schema })

const REQUEST_ID = header(
  "The request's `X-Request-Id` when it was sane (`[A-Za-z0-9._:-]{1,64}`), else one generated for it; on every log line of the request.",
  { type: "string", pattern: "^[A-Za-z0-9._:-]{1,64}$" }
)
const RETRY_AFTER = header("Whole seconds to wait before trying again.", { type: "integer", minimum: 0 })
const SPIN_ROUND = header("The round (a calendar day in WHEEL_TIMEZONE, `YYYY-MM-DD`).", {
  type: "string",
  pattern: "^\\d{4}-\\d{2}-\\d{2}$"
})
const ROUND_COMMITMENT = header("SHA-256 of the round's server seed, revealed once the round is over (hex).", {
  type: "string",
  pattern: "^[0-9a-f]{64}$"
})

/** Headers a handler sets on its success answer, by operation id. */
const SUCCESS_HEADERS: Record<string, Json> = {
  "wheel.view": { "X-Spin-Round": SPIN_ROUND, "X-Round-Commitment": ROUND_COMMITMENT },
  "wheel.spin": {
    "X-Spin-Id": header("The spin's id, for verifying it once the round is revealed.", {
      type: "string",
      format: "uuid"
    }),
    "X-Spin-Round": SPIN_ROUND,
    "X-Round-Commitment": ROUND_COMMITMENT
  }
}

/**
 * The rules `CardsService.add` checks after decoding (so that one 400 lists every broken one), as
 * JSON Schema keywords on the request body, for clients that validate before sending. The name is
 * trimmed before its length is checked.
 */
const CARD_RULES: Json = {
  cardholderName: { minLength: 2, maxLength: 100 },
  cardNumber: { pattern: "^[0-9]{12,19}$" },
  cvv: { pattern: "^[0-9]{3,4}$" }
}

/** `{ anyOf: [x] }` is `x`: Effect writes a one-branch union so, and linters flag it. */
const collapseSingleBranches = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(collapseSingleBranches)
  if (value === null || typeof value !== "object") return value
  const object = value as Json
  const anyOf = object.anyOf
  if (Array.isArray(anyOf) && anyOf.length === 1) {
    const { anyOf: _, ...rest } = object
    return collapseSingleBranches({ ...rest, ...anyOf[0] })
  }
  const result: Json = {}
  for (const [key, child] of Object.entries(object)) result[key] = collapseSingleBranches(child)
  return result
}

/**
 * `content` with the recorded example under its media type: JSON, or the one other type a body is
 * declared in (a settlement report's `text/csv`, whose example is the file's text).
 */
const withExample = (content: Json | undefined, example: unknown): Json | undefined => {
  const type = content?.["application/json"] !== undefined ? "application/json" : Object.keys(content ?? {})[0]
  const media = type === undefined ? undefined : content?.[type]
  return type === undefined || media === undefined || example === undefined
    ? content
    : {
        ...content,
        [type]: { ...media, examples: { recorded: { summary: "As the service answered", value: example } } }
      }
}

const completeOperation = (path: string, operation: Json): Json => {
  const id: string = operation.operationId
  const examples = EXAMPLES[id]
  const parameters = (operation.parameters ?? []).map((parameter: Json) => {
    const integer = parameter.in === "query" ? INTEGER_QUERY[parameter.name] : undefined
    return integer === undefined ? parameter : { ...parameter, schema: { type: "integer", ...integer } }
  })
  const responses: Json = {}
  for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
    const code = Number(status)
    const headers: Json = { ...response.headers, [Header.requestId]: REQUEST_ID }
    if (code === 429 || (code === 503 && path !== "/readyz")) headers["Retry-After"] = RETRY_AFTER
    if (code < 300) Object.assign(headers, SUCCESS_HEADERS[id])
    const content = code < 300 ? withExample(response.content, examples?.responses[code]) : response.content
    responses[status] = { ...response, headers, ...(content === undefined ? {} : { content }) }
  }
  const requestBody =
    operation.requestBody === undefined
      ? undefined
      : { ...operation.requestBody, content: withExample(operation.requestBody.content, examples?.request) }
  return {
    ...operation,
    parameters,
    responses,
    ...(requestBody === undefined ? {} : { requestBody })
  }
}

const withCardRules = (schemas: Json): Json => {
  const name = Object.keys(schemas).find((key) => key === "NewCardEncoded" || key === "NewCard")
  if (name === undefined) return schemas
  const card = schemas[name]
  const properties: Json = { ...card.properties }
  for (const [field, rules] of Object.entries<Json>(CARD_RULES)) properties[field] = { ...properties[field], ...rules }
  return { ...schemas, [name]: { ...card, properties } }
}

/** The document, completed as the comment at the top of this file says. */
export const completeDocument = (spec: Json): Json => {
  const paths: Json = {}
  for (const [path, item] of Object.entries<Json>(spec.paths ?? {})) {
    const updated: Json = { ...item }
    for (const method of METHODS) {
      if (item[method] !== undefined) updated[method] = completeOperation(path, item[method])
    }
    paths[path] = updated
  }
  return collapseSingleBranches({
    ...spec,
    // Relative: requests go to whichever origin served the document (the service itself, or its proxy).
    servers: [{ url: "/", description: "The origin that served this document" }],
    paths,
    components: {
      ...spec.components,
      schemas: withCardRules(spec.components?.schemas ?? {}),
      securitySchemes: { ...spec.components?.securitySchemes, [PROVIDER_SIGNATURE_SCHEME]: providerSignatureScheme }
    }
  }) as Json
}
