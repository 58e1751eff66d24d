import { assert, describe } from "@effect/vitest"
import { Effect } from "effect"
import { request, tokenFor, withTestServer } from "../../support/TestServer.ts"

const ENVELOPE_KEYS = ["timestamp", "status", "success", "message", "data"]

describe("HTTP foundation", () => {
  withTestServer("60 seconds")((it) => {
    it.effect("GET /healthz answers the envelope with an epoch timestamp", () =>
      Effect.gen(function* () {
        const before = Date.now()
        const response = yield* request("/healthz")
        assert.strictEqual(response.status, 200)
        assert.deepStrictEqual(Object.keys(response.json), ENVELOPE_KEYS)
        assert.deepStrictEqual(response.json.data, { status: "ok" })
        assert.strictEqual(response.json.status, 200)
        assert.strictEqual(response.json.success, true)
        assert.match(response.json.timestamp, /^\d{13}$/)
        assert.isAtLeast(Number(response.json.timestamp), before)
      })
    )

    it.effect("GET /readyz reports the database", () =>
      Effect.gen(function* () {
        const response = yield* request("/readyz")
        assert.strictEqual(response.status, 200)
        assert.deepStrictEqual(response.json.data, { database: "ok" })
      })
    )

    it.effect("an unknown route is a 404 envelope, and a known path with another method too", () =>
      Effect.gen(function* () {
        for (const [method, path] of [
          ["GET", "/no/such/route"],
          ["DELETE", "/healthz"]
        ] as const) {
          const response = yield* request(path, { method })
          assert.strictEqual(response.status, 404)
          assert.deepStrictEqual(Object.keys(response.json), ENVELOPE_KEYS)
          assert.strictEqual(response.json.success, false)
          assert.strictEqual(response.json.status, 404)
          assert.isNull(response.json.data)
        }
      })
    )

    it.effect("X-Request-Id is echoed when sane and generated otherwise", () =>
      Effect.gen(function* () {
        const given = yield* request("/healthz", { headers: { "x-request-id": "abc-123" } })
        assert.strictEqual(given.headers.get("x-request-id"), "abc-123")
        const hostile = yield* request("/healthz", { headers: { "x-request-id": "a b\tc<script>" } })
        assert.match(hostile.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/)
        const none = yield* request("/healthz")
        assert.match(none.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/)
      })
    )

    it.effect("GET /openapi.json is OpenAPI 3.1 generated from the API", () =>
      Effect.gen(function* () {
        const response = yield* request("/openapi.json")
        assert.strictEqual(response.status, 200)
        assert.strictEqual(response.json.openapi, "3.1.0")
        assert.property(response.json.paths, "/healthz")
        assert.property(response.json.paths, "/readyz")
      })
    )

    it.effect("GET /openapi.json documents the answers the middleware gives, as they are really shaped", () =>
      Effect.gen(function* () {
        const spec = (yield* request("/openapi.json")).json
        const schemaOf = (response: { content: { "application/json": { schema: { $ref: string } } } }) =>
          spec.components.schemas[response.content["application/json"].schema.$ref.split("/").pop() as string]
        /** The body has every required key of the documented schema and no key it does not list. */
        const conforms = (body: Record<string, unknown>, schema: { properties: object; required: Array<string> }) => {
          for (const key of schema.required) assert.property(body, key)
          for (const key of Object.keys(body)) assert.property(schema.properties, key)
        }

        // The webhook: its signature header (a security scheme: test/http/docs), and its errors in
        // the reduced envelope.
        const webhook = spec.paths["/v1/webhook/core-banking/provider"].post
        assert.deepStrictEqual(webhook.security, [{ providerSignature: [] }])
        assert.deepInclude(spec.components.securitySchemes.providerSignature, {
          in: "header",
          name: "X-Provider-Signature"
        })
        assert.includeMembers(Object.keys(webhook.responses), ["200", "400", "401", "413", "429", "500", "503"])
        const unsigned = yield* request("/v1/webhook/core-banking/provider", { method: "POST", body: {} })
        assert.strictEqual(unsigned.status, 401)
        conforms(unsigned.json, schemaOf(webhook.responses["401"]))
        assert.notProperty(unsigned.json, "timestamp")

        // A body endpoint: 413, 415, 429, 500 and 503 documented; a real 415 in the full envelope.
        const cards = spec.paths["/v1/user/cards"].post
        assert.includeMembers(Object.keys(cards.responses), ["413", "415", "429", "500", "503"])
        const token = yield* tokenFor("openapi-user")
        const plainText = yield* request("/v1/user/cards", {
          method: "POST",
          token,
          rawBody: "cardNumber=4111",
          headers: { "content-type": "text/plain" }
        })
        assert.strictEqual(plainText.status, 415)
        conforms(plainText.json, schemaOf(cards.responses["415"]))

        // Operational endpoints are never rate limited, so no 429 is documented there.
        assert.notProperty(spec.paths["/healthz"].get.responses, "429")
      })
    )

    it.effect("GET /docs serves the API reference with its script inline", () =>
      Effect.gen(function* () {
        const response = yield* request("/docs")
        assert.strictEqual(response.status, 200)
        assert.include(response.headers.get("content-type") ?? "", "text/html")
        assert.include(response.text, "api-reference")
        // The reference's script is served inline by this server, not loaded from a CDN, and it loads
        // no web fonts (a real browser checks that nothing leaves the machine: test/http/docs).
        assert.notMatch(response.text, /<script[^>]+src=/)
        assert.include(response.text, '"withDefaultFonts":false')
      })
    )

    it.effect("GET /metrics counts requests by route pattern and status", () =>
      Effect.gen(function* () {
        yield* request("/healthz")
        yield* request("/definitely/unknown/42")
        const response = yield* request("/metrics")
        assert.strictEqual(response.status, 200)
        assert.match(response.text, /http_requests_total\{[^}]*route="\/healthz"[^}]*status="200"[^}]*\} \d+/)
        assert.match(response.text, /http_requests_total\{[^}]*route="unmatched"[^}]*status="404"[^}]*\} \d+/)
        assert.match(response.text, /http_request_duration_seconds_bucket\{/)
        assert.notInclude(response.text, "/definitely/unknown/42")
      })
    )
  })
})
