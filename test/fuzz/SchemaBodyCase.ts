import { Api } from "@payments-gaming/api/Api"
import { InternalKey } from "@payments-gaming/api/middleware/InternalKey"
import { RequireAdmin } from "@payments-gaming/api/middleware/RequireAdmin"
import { WEBHOOK_PATH } from "@payments-gaming/api/Paths"
import { policyOf, ReadsRawBody } from "@payments-gaming/api/RoutePolicy"
import type { Schema } from "effect"
import { HttpApi, type HttpApiEndpoint } from "effect/http-api"
import fc from "fast-check"
import { signWebhook, TEST_ENV } from "../support/TestServer.ts"
import type { BodyCase } from "./BodyCase.ts"
import type { Credentials } from "./Credentials.ts"
import type { FuzzRequest } from "./FuzzRequest.ts"
import { hostileNumber } from "./HostileValues.ts"
import { jsonText, Raw } from "./JsonText.ts"
import { schemaSamples } from "./schemaSamples.ts"
import { webhookSeeds } from "./WebhookCase.ts"

/** A route of Api.ts that reads a body, as the API itself declares it. */
export interface PayloadRoute {
  readonly name: string
  readonly method: string
  /** Paths with the parameters filled from the params Schema. */
  readonly paths: ReadonlyArray<string>
  /** Valid JSON bodies from the payload Schema (plus the webhook's documented samples). */
  readonly seeds: ReadonlyArray<unknown>
  readonly auth: "user" | "admin" | "push" | "signed"
}

/**
 * The JSON body schemas of an endpoint. A body in another media type (a settlement report's
 * text/csv) is not a JSON document to inject into: its hostile bodies (NUL, invalid UTF-8, quotes,
 * an enormous field) are sent by its own end-to-end test (test/http/reconciliation).
 */
const payloadSchemas = (endpoint: HttpApiEndpoint.Top): ReadonlyArray<Schema.Top> =>
  (endpoint.payload.get("application/json")?.schemas ?? []) as ReadonlyArray<Schema.Top>

const fill = (path: string, params: unknown) =>
  path.replace(/:(\w+)/g, (_, name: string) =>
    encodeURIComponent(String((params as Record<string, unknown> | undefined)?.[name] ?? "1"))
  )

/**
 * Every endpoint of the API with a payload, read from the API definition (so a route added later
 * is fuzzed without anyone listing it here), with bodies derived from its own payload Schema.
 */
export const payloadRoutes = (
  samples: number,
  seed: number,
  /** Hand-written valid bodies by route name (`POST /v1/user/cards`), which reach the use cases. */
  valid: ReadonlyMap<string, ReadonlyArray<unknown>> = new Map()
): ReadonlyArray<PayloadRoute> => {
  const routes: Array<PayloadRoute> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint }) => {
      const schemas = payloadSchemas(endpoint)
      if (schemas.length === 0) return
      const raw = policyOf({ group, endpoint }, ReadsRawBody)
      const derived = schemas.flatMap((schema, index) =>
        schemaSamples(schema as Schema.Codec<unknown, unknown>, samples, seed + index)
      )
      const params =
        endpoint.params === undefined
          ? [undefined]
          : schemaSamples(endpoint.params as Schema.Codec<unknown, unknown>, 4, seed)
      const name = `${endpoint.method} ${endpoint.path}`
      const seeds = [...(raw ? webhookSeeds() : []), ...(valid.get(name) ?? []), ...derived]
      routes.push({
        name,
        method: endpoint.method,
        paths: [...new Set((params.length === 0 ? [undefined] : params).map((value) => fill(endpoint.path, value)))],
        // An empty object is a start where neither a sample nor derivation gives anything.
        seeds: seeds.length > 0 ? seeds : [{}],
        auth: raw
          ? "signed"
          : endpoint.middlewares.has(RequireAdmin)
            ? "admin"
            : endpoint.middlewares.has(InternalKey)
              ? "push"
              : "user"
      })
    }
  })
  return routes
}

type Step = string | number
type Leaf = { readonly path: ReadonlyArray<Step>; readonly value: unknown }

const leavesOf = (value: unknown, path: ReadonlyArray<Step> = []): Array<Leaf> => {
  if (Array.isArray(value))
    return [{ path, value }, ...value.flatMap((item, index) => leavesOf(item, [...path, index]))]
  if (typeof value === "object" && value !== null) {
    return [{ path, value }, ...Object.entries(value).flatMap(([key, member]) => leavesOf(member, [...path, key]))]
  }
  return [{ path, value }]
}

const replaced = (value: unknown, path: ReadonlyArray<Step>, member: unknown): unknown => {
  if (path.length === 0) return member
  const [head, ...rest] = path as [Step, ...Array<Step>]
  if (Array.isArray(value)) return value.map((item, index) => (index === head ? replaced(item, rest, member) : item))
  return {
    ...(value as Record<string, unknown>),
    [head]: replaced((value as Record<string, unknown>)[head], rest, member)
  }
}

// Placed in a string and swapped for raw bytes once the body is text: JSON.stringify cannot write
// invalid UTF-8, which is exactly what a hostile client sends.
const MARKER = "@@hostile-bytes@@"
const markerBytes = new TextEncoder().encode(MARKER)

/** What is put inside a string of the body: the text no field may hold, and text that it may. */
const INSIDE_STRINGS: ReadonlyArray<{ readonly label: string; readonly bytes?: ReadonlyArray<number>; text?: string }> =
  [
    { label: "NUL (\\u0000 escape)", text: "\u0000" },
    { label: "raw NUL byte", bytes: [0x00] },
    { label: "lone high surrogate as UTF-8 bytes", bytes: [0xed, 0xa0, 0x80] },
    { label: "lone low surrogate as UTF-8 bytes", bytes: [0xed, 0xb0, 0x80] },
    { label: "invalid byte 0xff", bytes: [0xff] },
    { label: "overlong slash", bytes: [0xc0, 0xaf] },
    { label: "truncated sequence", bytes: [0xe2, 0x82] }
  ]
/** Labels of injections every route must answer 400 (the webhook too, once its signature checks). */
export const mustRefuse = (label: string) => INSIDE_STRINGS.some((entry) => label.startsWith(entry.label))

const TOLERATED = [
  "\ud800",
  "\udfff",
  "x".repeat(100_000),
  "\u202e\ufeff",
  "😀".repeat(500),
  "' OR 1=1 --",
  "\\u0000",
  "%00"
]

/** One hostile change to a valid-shaped body, and what it was. */
type Injection =
  | { readonly kind: "inside"; readonly at: number; readonly which: number; readonly offset: number }
  | { readonly kind: "tolerated"; readonly at: number; readonly which: number }
  | { readonly kind: "number"; readonly at: number; readonly value: unknown }
  | { readonly kind: "nesting"; readonly at: number; readonly depth: number; readonly array: boolean }

const injection: fc.Arbitrary<Injection> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("inside" as const),
      at: fc.nat(),
      which: fc.nat(INSIDE_STRINGS.length - 1),
      offset: fc.nat()
    })
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("tolerated" as const), at: fc.nat(), which: fc.nat(TOLERATED.length - 1) })
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("number" as const), at: fc.nat(), value: hostileNumber }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("nesting" as const),
      at: fc.nat(),
      depth: fc.constantFrom(100, 10_000, 100_000),
      array: fc.boolean()
    })
  }
)

const encoder = new TextEncoder()

const splice = (bytes: Uint8Array, marker: Uint8Array, inserted: ReadonlyArray<number>) => {
  const at = Buffer.from(bytes).indexOf(marker)
  return at === -1
    ? bytes
    : new Uint8Array([...bytes.subarray(0, at), ...inserted, ...bytes.subarray(at + marker.length)])
}

/** `seed` with `change` applied: in a string where there is one, else in a member added for it. */
export const inject = (seed: unknown, change: Injection): BodyCase => {
  const leaves = leavesOf(seed)
  const strings = leaves.filter((leaf) => typeof leaf.value === "string")
  const numbers = leaves.filter((leaf) => typeof leaf.value === "number")
  const pick = <A>(items: ReadonlyArray<A>, at: number) => items[at % items.length] as A
  // Where there is no member of the kind needed, one is added under a name no Schema knows.
  const target = (candidates: ReadonlyArray<Leaf>): { path: ReadonlyArray<Step>; text: string } =>
    candidates.length > 0
      ? (() => {
          const leaf = pick(candidates, change.at)
          return { path: leaf.path, text: typeof leaf.value === "string" ? leaf.value : "" }
        })()
      : { path: typeof seed === "object" && seed !== null && !Array.isArray(seed) ? ["hostile"] : [], text: "" }
  const where = (path: ReadonlyArray<Step>) => path.join(".") || "(root)"
  switch (change.kind) {
    case "inside": {
      const entry = INSIDE_STRINGS[change.which] as (typeof INSIDE_STRINGS)[number]
      const { path, text } = target(strings)
      const cut = change.offset % (text.length + 1)
      const label = `${entry.label} in ${where(path)}`
      if (entry.text !== undefined) {
        const value = `${text.slice(0, cut)}${entry.text}${text.slice(cut)}`
        return { label, bytes: encoder.encode(jsonText(replaced(seed, path, value))) }
      }
      const marked = `${text.slice(0, cut)}${MARKER}${text.slice(cut)}`
      return {
        label,
        bytes: splice(encoder.encode(jsonText(replaced(seed, path, marked))), markerBytes, entry.bytes ?? [])
      }
    }
    case "tolerated": {
      const { path } = target(strings)
      return {
        label: `string ${change.which} in ${where(path)}`,
        bytes: encoder.encode(jsonText(replaced(seed, path, TOLERATED[change.which])))
      }
    }
    case "number": {
      const { path } = target(numbers)
      const written = change.value instanceof Raw ? change.value.text : jsonText(change.value)
      return {
        label: `number ${written.slice(0, 24)} in ${where(path)}`,
        bytes: encoder.encode(jsonText(replaced(seed, path, change.value)))
      }
    }
    case "nesting": {
      const { path } = target(leaves.slice(1))
      const nested = change.array
        ? new Raw(`${"[".repeat(change.depth)}${"]".repeat(change.depth)}`)
        : new Raw(`${'{"a":'.repeat(change.depth)}1${"}".repeat(change.depth)}`)
      return {
        label: `${change.array ? "arrays" : "objects"} ${change.depth} deep in ${where(path)}`,
        bytes: encoder.encode(jsonText(replaced(seed, path, nested)))
      }
    }
  }
}

// Spellings the router takes for the same route, and queries that name another route: the guard
// must follow the route matched, whatever the URL text says.
const spelled = fc.constantFrom(
  (path: string) => path,
  (path: string) => path.toUpperCase(),
  (path: string) => path.replace(/\//g, "//")
)
const QUERIES = ["", "", `?next=${WEBHOOK_PATH}`, "?next=%2Fv1%2Fwebhook%2Fx&limit=1", "?a=/v1/user/cards"]

/** Requests to `route` with a valid-shaped body carrying one hostile injection, under good credentials. */
export const schemaBodyRequest = (
  route: PayloadRoute,
  base: string,
  credentials: Credentials
): fc.Arbitrary<FuzzRequest> =>
  fc
    .tuple(
      fc.constantFrom(...route.seeds),
      injection,
      fc.constantFrom(...route.paths),
      spelled,
      fc.constantFrom(...QUERIES),
      fc.constantFrom(...credentials.users)
    )
    .map(([seed, change, path, spell, query, user]) => {
      const body = inject(seed, change)
      const headers: Record<string, string> = { "content-type": "application/json" }
      if (route.auth === "signed") {
        headers["x-provider-signature"] = signWebhook(body.bytes)
      } else {
        headers.authorization = `Bearer ${route.auth === "admin" ? credentials.admin : user}`
        if (route.auth === "push") headers["x-internal-key"] = TEST_ENV.INTERNAL_API_KEY
      }
      return {
        endpoint: route.name,
        method: route.method,
        url: `${base}${spell(path)}${query}`,
        headers,
        body,
        authAccepted: undefined,
        label: body.label
      }
    })
