import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe } from "@effect/vitest"
import { Api } from "@payments-gaming/api/Api"
import { EXAMPLES } from "@payments-gaming/api/OpenApiExamples"
import { RECONCILIATIONS_PATH } from "@payments-gaming/api/Paths"
import { Effect, Result, Schema } from "effect"
import { HttpApi } from "effect/http-api"
import { runNode } from "../../support/NodeProcess.ts"
import { deliverWebhook, request, tokenFor, withTestServer } from "../../support/TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: the served document is arbitrary JSON
type Json = Record<string, any>

const METHODS = ["get", "put", "post", "delete", "patch"] as const

const operationsOf = (document: Json) =>
  Object.entries<Json>(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => (item[method] === undefined ? [] : [{ path, method, operation: item[method] as Json }]))
  )

/** Redocly CLI as CI runs it: the repository's redocly.yaml, no telemetry, no update check. */
const redoclyLint = (file: string) =>
  runNode(
    "node_modules/@redocly/cli/bin/cli.js",
    ["lint", file, "--config", "redocly.yaml", "--format", "json"],
    { REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    60_000
  )

const served = request("/openapi.json").pipe(
  Effect.map((answer) => {
    assert.strictEqual(answer.status, 200)
    return answer.json as Json
  })
)

/** Every endpoint of the API with its operation id, request body schemas and success schemas by status. */
const endpoints = () => {
  const found: Array<{
    id: string
    payload: ReadonlyArray<Schema.Top>
    /** The body is not JSON (a settlement report's text/csv): its example is the body's text. */
    textPayload: boolean
    successes: ReadonlyMap<number, ReadonlyArray<Schema.Top>>
  }> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint, successes }) => {
      const json = endpoint.payload.get("application/json")
      found.push({
        id: `${group.identifier}.${endpoint.identifier}`,
        payload: json === undefined ? [] : json.schemas,
        textPayload: json === undefined && endpoint.payload.size > 0,
        successes
      })
    }
  })
  return found
}

/** Whether `value` decodes, as JSON, with one of `schemas`; the issues of the last one otherwise. */
const decodesWithOne = (schemas: ReadonlyArray<Schema.Top>, value: unknown) => {
  let issues = "no schema"
  for (const schema of schemas) {
    const result = Schema.decodeUnknownResult(Schema.toCodecJson(schema as Schema.Codec<unknown, unknown>))(value, {
      errors: "all",
      onExcessProperty: "error"
    })
    if (Result.isSuccess(result)) return undefined
    issues = String(result.failure)
  }
  return issues
}

describe("the OpenAPI document", () => {
  withTestServer("60 seconds")((it) => {
    it.effect(
      "passes Redocly's recommended ruleset with no error and no warning",
      () =>
        Effect.gen(function* () {
          const document = yield* served
          const dir = yield* Effect.acquireRelease(
            Effect.sync(() => mkdtempSync(join(tmpdir(), "openapi-lint-"))),
            (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
          )
          const file = join(dir, "openapi.json")
          writeFileSync(file, JSON.stringify(document, null, 2))
          const lint = yield* redoclyLint(file)
          const report = JSON.parse(lint.stdout) as { totals: { errors: number; warnings: number; ignored: number } }
          const problems = (report as unknown as { problems: Array<{ ruleId: string; message: string }> }).problems
          assert.deepStrictEqual(
            report.totals,
            { errors: 0, warnings: 0, ignored: 0 },
            problems.map((problem) => `${problem.ruleId}: ${problem.message}`).join("\n")
          )
          assert.strictEqual(lint.code, 0, lint.stderr)
        }),
      90_000
    )

    it.effect(
      "declares the bearer scheme as API tools read it, and the webhook signature and internal key as API keys",
      () =>
        Effect.gen(function* () {
          const document = yield* served
          assert.deepInclude(document.components.securitySchemes.bearer, {
            type: "http",
            scheme: "bearer",
            bearerFormat: "JWT"
          })
          assert.deepInclude(document.components.securitySchemes.internalKey, {
            type: "apiKey",
            in: "header",
            name: "X-Internal-Key"
          })
          assert.deepInclude(document.components.securitySchemes.providerSignature, {
            type: "apiKey",
            in: "header",
            name: "X-Provider-Signature"
          })
          const webhook = document.paths["/v1/webhook/core-banking/provider"].post
          assert.deepStrictEqual(webhook.security, [{ providerSignature: [] }])
          assert.isFalse(
            (webhook.parameters as Array<Json>).some((parameter) => parameter.name === "X-Provider-Signature"),
            "the signature is a security scheme, not a parameter"
          )
          assert.deepStrictEqual(document.paths["/v1/debug/push-direct"].post.security, [
            { internalKey: [], bearer: [] }
          ])
          assert.deepStrictEqual(document.paths["/v1/wallet"].get.security, [{ bearer: [] }])
        })
    )

    it.effect("every operation has a summary, a description and an example of its request body and each success", () =>
      Effect.gen(function* () {
        const document = yield* served
        const operations = operationsOf(document)
        assert.isAtLeast(operations.length, 30)
        for (const { path, method, operation } of operations) {
          const where = `${method.toUpperCase()} ${path}`
          assert.isNotEmpty(operation.summary, where)
          assert.isNotEmpty(operation.description, where)
          if (operation.requestBody !== undefined) {
            // JSON, or the one media type the body is declared in (a settlement report's text/csv).
            const [media] = Object.values<Json>(operation.requestBody.content)
            assert.isDefined(media?.examples?.recorded?.value, `${where} request`)
          }
          for (const [status, response] of Object.entries<Json>(operation.responses)) {
            assert.isDefined(response.headers?.["X-Request-Id"], `${where} ${status} X-Request-Id`)
            if (Number(status) < 300) {
              assert.isDefined(
                response.content["application/json"].examples?.recorded?.value,
                `${where} ${status} example`
              )
            }
            if (status === "429") assert.isDefined(response.headers["Retry-After"], `${where} 429`)
          }
        }
        for (const tag of document.tags as Array<Json>) assert.isNotEmpty(tag.description, tag.name)
        assert.isNotEmpty(document.servers)
        assert.isNotEmpty(document.info.license.name)
      })
    )

    it.effect("types its query integers, response headers, money fields and card rules", () =>
      Effect.gen(function* () {
        const document = yield* served
        for (const { path, method, operation } of operationsOf(document)) {
          for (const parameter of operation.parameters as Array<Json>) {
            if (parameter.in === "query" && (parameter.name === "limit" || parameter.name === "offset")) {
              assert.strictEqual(parameter.schema.type, "integer", `${method} ${path} ${parameter.name}`)
            }
          }
        }
        const spin = document.paths["/v1/spin-and-win/spin"].post.responses["200"].headers
        for (const name of ["X-Spin-Id", "X-Spin-Round", "X-Round-Commitment"]) assert.isDefined(spin[name], name)
        const view = document.paths["/v1/spin-and-win"].get.responses["200"].headers
        for (const name of ["X-Spin-Round", "X-Round-Commitment"]) assert.isDefined(view[name], name)
        assert.isDefined(document.paths["/v1/wallet"].get.responses["503"].headers["Retry-After"])

        // The webhook's amounts: a JSON number or decimal text, never an untyped `{}`.
        const text = JSON.stringify(document.paths["/v1/webhook/core-banking/provider"].post.requestBody)
        assert.notInclude(text, "{}")
        const credit =
          document.paths["/v1/webhook/core-banking/provider"].post.requestBody.content["application/json"].schema
            .anyOf[0].properties.data.properties
        for (const field of ["amount", "fee", "settled_amount"]) {
          assert.deepStrictEqual(
            (credit[field].anyOf as Array<Json>).map((branch) => branch.type),
            ["number", "string"],
            field
          )
        }

        const cardRef: string =
          document.paths["/v1/user/cards"].post.requestBody.content["application/json"].schema.$ref
        const card = document.components.schemas[cardRef.split("/").pop()!].properties
        assert.deepInclude(card.cardholderName, { minLength: 2, maxLength: 100 })
        assert.deepInclude(card.cardNumber, { pattern: "^[0-9]{12,19}$" })
        assert.deepInclude(card.cvv, { pattern: "^[0-9]{3,4}$" })
      })
    )

    it.effect("the examples decode with their endpoint's own schemas", () =>
      Effect.sync(() => {
        const all = endpoints()
        assert.deepStrictEqual(
          Object.keys(EXAMPLES).sort(),
          all.map((endpoint) => endpoint.id).sort(),
          "one recorded example per endpoint in apps/http/src/OpenApiExamples.ts (a real request's body and answers)"
        )
        for (const { id, payload, textPayload, successes } of all) {
          const example = EXAMPLES[id]!
          if (textPayload) {
            assert.isString(example.request, `${id} request is the body's text`)
          } else if (payload.length > 0) {
            assert.isUndefined(decodesWithOne(payload, example.request), `${id} request`)
          } else {
            assert.isUndefined(example.request, `${id} takes no body`)
          }
          assert.deepStrictEqual(
            Object.keys(example.responses).map(Number).sort(),
            [...successes.keys()].sort(),
            `${id}: one example per success status`
          )
          for (const [status, schemas] of successes) {
            assert.isUndefined(decodesWithOne(schemas, example.responses[status]), `${id} ${status}`)
          }
        }
      })
    )

    it.effect("example requests are answered as their examples say (the webhook's, signed; the wallet's shape)", () =>
      Effect.gen(function* () {
        const webhook = EXAMPLES["webhook.coreBanking"]!
        const delivered = yield* deliverWebhook(JSON.stringify(webhook.request))
        assert.strictEqual(delivered.status, 200, delivered.text)
        assert.deepStrictEqual(delivered.json, webhook.responses[200])

        // The settlement report's example, imported for its day: the answer has the example's shape.
        const report = EXAMPLES["reconciliations.import"]!
        const imported = yield* request(`${RECONCILIATIONS_PATH}?date=${(report.responses[201] as Json).data.date}`, {
          method: "POST",
          token: yield* tokenFor("openapi-example-admin", ["admin"]),
          rawBody: report.request as string,
          headers: { "content-type": "text/csv" }
        })
        assert.strictEqual(imported.status, 201, imported.text)
        assert.deepStrictEqual(
          Object.keys(imported.json.data).sort(),
          Object.keys((report.responses[201] as Json).data).sort()
        )
        assert.strictEqual(imported.json.data.sha256, (report.responses[201] as Json).data.sha256)

        const wallet = yield* request("/v1/wallet", { token: yield* tokenFor("openapi-example-user") })
        assert.strictEqual(wallet.status, 200)
        const example = EXAMPLES["wallet.wallet"]!.responses[200] as Json
        assert.deepStrictEqual(Object.keys(wallet.json).sort(), Object.keys(example).sort())
        assert.deepStrictEqual(Object.keys(wallet.json.data).sort(), Object.keys(example.data).sort())
      })
    )
  })
})
