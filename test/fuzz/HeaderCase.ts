import fc from "fast-check"
import { TEST_ENV } from "../support/TestServer.ts"
import type { Credentials } from "./Credentials.ts"

/** Who an endpoint lets in. */
export type AuthKind = "none" | "user" | "admin" | "push" | "webhook"

/** Headers of one request and whether its credentials should be accepted (undefined: not decided). */
export interface HeaderCase {
  readonly label: string
  readonly headers: Record<string, string>
  readonly authAccepted: boolean | undefined
}

// Header values fetch can send: tab, visible ASCII and Latin-1 (no CR, LF or NUL, which Node's
// parser refuses before the application sees them).
const headerChar = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0x21, max: 0x7e }) },
  { weight: 1, arbitrary: fc.constantFrom(0x09, 0x20) },
  { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) }
)
const headerValue = (maxLength: number) =>
  fc
    .array(headerChar, { minLength: 1, maxLength })
    .map((codes) => String.fromCharCode(...codes).trim())
    .filter((value) => value.length > 0)

export const junkHeaderValue = fc.oneof(
  headerValue(40),
  fc.constantFrom("", "null", "undefined", "../../etc/passwd", `$${"{"}jndi:x}`, "\u00ff\u00fe", "a\tb"),
  fc.integer({ min: 1_000, max: 12_000 }).map((length) => "h".repeat(length))
)

const CONTENT_TYPES = [
  "application/json; charset=utf-8",
  "application/JSON",
  "APPLICATION/JSON;CHARSET=UTF-8",
  "application/json; charset=latin1",
  "application/json; charset=utf-16",
  "application/json;;;",
  "application/json, text/plain",
  "application/merge-patch+json",
  "application/problem+json",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=boundary",
  "multipart/form-data",
  "text/plain",
  "text/json",
  "application/xml",
  "application/octet-stream",
  "*/*",
  "json",
  "",
  ";",
  "application/",
  "application/json; boundary=x; charset=\u00ff"
]

/** Mostly `application/json`, else a variant, a wrong type, junk, or none at all. */
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 12, arbitrary: fc.constant("application/json") },
  { weight: 4, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: junkHeaderValue }
)

const REQUEST_IDS = ["", " ", "a b", "x".repeat(65), "x".repeat(64), "req-1", "ok.id:1-2_3", "<script>", "é", "../.."]
const requestId = fc.oneof(fc.constantFrom(...REQUEST_IDS), junkHeaderValue)

const idempotencyKey = fc.oneof(
  fc.constantFrom("", " ", "k".repeat(255), "k".repeat(256), "key with space", "\u00e9t\u00e9", "a\tb", "%00"),
  fc.stringMatching(/^[\x21-\x7e]{1,40}$/),
  junkHeaderValue
)

const HEADER_NAMES = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9-]{0,30}$/),
  fc.constantFrom(
    "x-forwarded-for",
    "x-forwarded-host",
    "x-http-method-override",
    "x-original-url",
    "accept",
    "accept-encoding",
    "accept-language",
    "origin",
    "cookie",
    "if-none-match",
    "range",
    "x-provider-signature",
    "x-internal-key",
    "content-encoding"
  )
)
const extraHeaders = fc.dictionary(HEADER_NAMES, junkHeaderValue, { maxKeys: 3 })

const bearer = (token: string) => `Bearer ${token}`

/** The Authorization (and X-Internal-Key) an endpoint of `kind` is called with. */
const authorization = (kind: AuthKind, credentials: Credentials) => {
  const user = fc.constantFrom(...credentials.users)
  const good = kind === "admin" ? fc.constant(credentials.admin) : fc.oneof(user, fc.constant(credentials.admin))
  type Auth = { label: string; headers: Record<string, string>; accepted: boolean | undefined }
  const accepted: fc.Arbitrary<Auth> = good.map((token) => ({
    label: "valid auth",
    headers: {
      authorization: bearer(token),
      ...(kind === "push" ? { "x-internal-key": TEST_ENV.INTERNAL_API_KEY } : {})
    },
    accepted: true
  }))
  const badBearer: fc.Arbitrary<Auth> = fc
    .oneof(
      fc.constant<Record<string, string>>({}),
      fc
        .constantFrom(
          "",
          "Bearer",
          "Bearer ",
          "Bearer      ",
          "Basic dXNlcjpwYXNz",
          "Bearer x",
          "Bearer a.b.c",
          "Bearer ..",
          "Token abc",
          `Bearer ${"A".repeat(8_000)}`,
          "Bearer \u00ff\u00fe.\u00e9.x"
        )
        .map((value) => ({ authorization: value })),
      fc.constantFrom(...credentials.refused).map((token) => ({ authorization: bearer(token) })),
      fc.tuple(good, fc.constantFrom("x", ".", "..x", " junk")).map(([token, tail]) => ({
        authorization: bearer(`${token}${tail}`)
      })),
      fc.tuple(good, junkHeaderValue).map(([token, junk]) => ({ authorization: `${junk} ${token}` }))
    )
    .map((headers) => ({
      label: "refused bearer",
      headers: { ...headers, ...(kind === "push" ? { "x-internal-key": TEST_ENV.INTERNAL_API_KEY } : {}) },
      accepted: false
    }))
  // A scheme written in another case is allowed by RFC 7235; whether it passes is not decided here.
  const oddScheme: fc.Arbitrary<Auth> = fc
    .tuple(good, fc.constantFrom("bearer", "BEARER", "Bearer  "))
    .map(([token, scheme]) => ({
      label: "odd scheme",
      headers: {
        authorization: `${scheme} ${token}`,
        ...(kind === "push" ? { "x-internal-key": TEST_ENV.INTERNAL_API_KEY } : {})
      },
      accepted: undefined
    }))
  const others: Array<fc.Arbitrary<Auth>> = []
  if (kind === "admin") {
    others.push(
      user.map((token) => ({ label: "non-admin", headers: { authorization: bearer(token) }, accepted: false }))
    )
  }
  if (kind === "push") {
    others.push(
      fc
        .tuple(
          good,
          fc.oneof(
            fc.constant(undefined),
            fc.constantFrom("", TEST_ENV.INTERNAL_API_KEY.toUpperCase(), `${TEST_ENV.INTERNAL_API_KEY}x`),
            junkHeaderValue
          )
        )
        .map(([token, key]) => ({
          label: "wrong internal key",
          headers: { authorization: bearer(token), ...(key === undefined ? {} : { "x-internal-key": key }) },
          accepted: false
        }))
    )
  }
  if (kind === "none" || kind === "webhook") {
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant<Auth>({ label: "no auth", headers: {}, accepted: undefined }) },
      { weight: 1, arbitrary: badBearer.map((auth) => ({ ...auth, accepted: undefined })) }
    )
  }
  return fc.oneof(
    { weight: 16, arbitrary: accepted },
    { weight: 3, arbitrary: badBearer },
    { weight: 1, arbitrary: oddScheme },
    ...others.map((arbitrary) => ({ weight: 2, arbitrary }))
  )
}

// Node refuses a request line and header block over 16 KiB together with a 431 before routing;
// the fuzz stays under it so every request reaches the application (the 431 is tested on its own).
const HEAD_BUDGET = 14_000

/** Shortens the longest header values until request line and headers fit in `HEAD_BUDGET`. */
export const withinBudget = (headers: Record<string, string>, target = "") => {
  const budget = HEAD_BUDGET - target.length
  const size = () => Object.entries(headers).reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0)
  while (size() > budget) {
    const [name, value] = Object.entries(headers).reduce((longest, entry) =>
      entry[1].length > longest[1].length ? entry : longest
    )
    headers[name] = value.slice(0, Math.max(1, value.length - (size() - budget)))
  }
  return headers
}

/** Headers for one request to an endpoint of `kind`, with or without a body. */
export const headerCase = (kind: AuthKind, credentials: Credentials, withBody: boolean): fc.Arbitrary<HeaderCase> =>
  fc
    .record({
      auth: authorization(kind, credentials),
      contentType: withBody ? contentType : fc.constant(undefined),
      requestId: fc.option(requestId, { freq: 3 }),
      idempotencyKey: fc.option(idempotencyKey, { freq: 4 }),
      extra: fc.option(extraHeaders, { freq: 3 })
    })
    .map(({ auth, contentType, requestId, idempotencyKey, extra }) => {
      const headers: Record<string, string> = { ...(extra ?? {}) }
      // The case's own credentials win over a same-named junk header.
      Object.assign(headers, auth.headers)
      if (contentType !== undefined) headers["content-type"] = contentType
      if (requestId !== null) headers["x-request-id"] = requestId
      if (idempotencyKey !== null) headers["idempotency-key"] = idempotencyKey
      return { label: auth.label, headers, authAccepted: auth.accepted }
    })
