import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"
import { baseUrl, TestServer } from "../support/TestServer.ts"
import { type CampaignResult, fuzz, merge, report } from "./Campaign.ts"
import { makeCredentials } from "./Credentials.ts"
import { endpoints } from "./Endpoints.ts"
import { ErrorLog, loggedErrors } from "./ErrorLog.ts"
import { FuzzProfile } from "./FuzzProfile.ts"
import { type FuzzRequest, fuzzRequest } from "./FuzzRequest.ts"
import { makeFixtures } from "./makeFixtures.ts"
import { rawAnswerProblems, rawRequest, sendRaw } from "./RawRequestCase.ts"
import { parseResponse, trickle } from "./RawSocket.ts"
import { type Answer, answerProblems } from "./ResponseChecks.ts"
import { mustRefuse, payloadRoutes, schemaBodyRequest } from "./SchemaBodyCase.ts"
import { signedWebhook, unsignedWebhook } from "./WebhookCase.ts"

const seed = FuzzProfile.seed
const CONCURRENCY = 16
const MAX_BODY = 256 * 1024
const timeout = FuzzProfile.long ? 60 * 60_000 : 60_000

const summary = (name: string, result: CampaignResult) => {
  const lines = Object.entries(result.statuses).map(
    ([endpoint, statuses]) =>
      `  ${endpoint}: ${Object.entries(statuses)
        .map(([status, count]) => `${status}×${count}`)
        .join(" ")}`
  )
  console.log(
    `[fuzz] ${name}: ${result.sent} requests in ${result.millis} ms (${FuzzProfile.describe()})\n${lines.join("\n")}`
  )
}

const count = (result: CampaignResult, endpoint: string, match: (status: number) => boolean) =>
  Object.entries(result.statuses[endpoint] ?? {}).reduce(
    (sum, [status, times]) => (match(Number(status)) ? sum + times : sum),
    0
  )

/** Campaigns one after the other (each request judged by `judge`), summarised as `name`; fails on any finding. */
const campaigns = (
  name: string,
  runs: ReadonlyArray<{ readonly arbitrary: fc.Arbitrary<FuzzRequest>; readonly runs: number; readonly seed: number }>,
  judge?: (request: FuzzRequest, answer: Answer) => Array<string>
) =>
  Effect.gen(function* () {
    const results: Array<CampaignResult> = []
    for (const { arbitrary, ...options } of runs) {
      const settings = { ...options, concurrency: CONCURRENCY, ...(judge === undefined ? {} : { judge }) }
      results.push(yield* Effect.promise(() => fuzz(arbitrary, settings)))
    }
    const result = merge(results)
    summary(name, result)
    assert.deepStrictEqual(result.findings.length, 0, `\n${report(result.findings)}`)
    return result
  })

/** The route's own checks, and `more` of this campaign. */
const judgedBy =
  (more: (request: FuzzRequest, answer: Answer) => ReadonlyArray<string>) => (request: FuzzRequest, answer: Answer) => [
    ...answerProblems(request, answer),
    ...more(request, answer)
  ]

/** `head` sent as is on its own connection, and the answer parsed. */
const rawAnswer = (head: string) =>
  Effect.gen(function* () {
    const port = Number(new URL(yield* baseUrl).port)
    const exchange = yield* Effect.promise(() => trickle(port, head, "", 1_000, 5_000))
    return parseResponse(exchange.bytes)
  })

/** The server's base URL and credentials for `users` users (and an admin). */
const serverAndCredentials = (users: number) =>
  Effect.gen(function* () {
    const base = yield* baseUrl
    return { base, credentials: yield* Effect.promise(() => makeCredentials(users)) }
  })

const storedWebhookRows = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ events: number; deadLetters: number }>`
    SELECT (SELECT count(*)::int FROM webhook_events) AS events,
           (SELECT count(*)::int FROM webhook_dead_letters) AS "deadLetters"`
  return row as { events: number; deadLetters: number }
})

/** A campaign against the webhook alone, with its stored events and dead letters counted before and after. */
const webhookCampaign = (
  name: string,
  arbitrary: (base: string) => fc.Arbitrary<FuzzRequest>,
  seedOffset: number,
  more: (request: FuzzRequest, answer: Answer) => ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const base = yield* baseUrl
    const before = yield* storedWebhookRows
    const runs = [{ arbitrary: arbitrary(base), runs: FuzzProfile.cases(300), seed: seed + seedOffset }]
    const result = yield* campaigns(name, runs, judgedBy(more))
    return { result, before, after: yield* storedWebhookRows }
  })

// The rate limiter would answer most of a fuzz run with 429s; it has tests of its own. The named
// form of `layer` gives closing the server and dropping the database the same time limit as
// starting them: after a long run, dropping the database (a checkpoint) can outlast the default 60 s.
layer(TestServer({ RATE_LIMIT_PER_IP: "0", RATE_LIMIT_PER_USER: "0" }).pipe(Layer.provide(ErrorLog)), {
  timeout: FuzzProfile.long ? "10 minutes" : "120 seconds",
  excludeTestServices: true
})("fuzzing every endpoint with hostile requests", (it) => {
  it.effect(
    "no request gets a 5xx; every 4xx has the route's envelope; every 2xx the route's body",
    () =>
      Effect.gen(function* () {
        const { base, credentials } = yield* serverAndCredentials(8)
        const fixtures = yield* Effect.promise(() => makeFixtures(base, credentials))
        const catalogue = endpoints(fixtures, 20, seed)
        const result = yield* campaigns(
          "endpoints",
          catalogue.map((endpoint, index) => ({
            arbitrary: fuzzRequest(endpoint, base, credentials),
            runs: FuzzProfile.cases(endpoint.bodies === undefined ? 70 : 160),
            seed: seed + index
          }))
        )
        assert.deepStrictEqual(loggedErrors, [], "the server logged errors while answering")
        // The fuzz is only worth something if it got past authentication to the decoders and
        // the use cases: every endpoint answered a 400, and all but two a 2xx.
        for (const endpoint of catalogue) {
          const { name } = endpoint
          if (endpoint.bodies !== undefined || name.includes("{")) {
            assert.isAbove(
              count(result, name, (status) => status === 400),
              0,
              `${name} never answered 400`
            )
          }
          if (!name.includes("rounds") && !name.startsWith("DELETE")) {
            assert.isAbove(
              count(result, name, (status) => status < 300),
              0,
              `${name} never answered 2xx`
            )
          }
        }
      }),
    timeout
  )

  it.effect(
    "every route with a body, fed valid-shaped bodies from its own Schema with one hostile value, never answers 5xx",
    () =>
      Effect.gen(function* () {
        const { base, credentials } = yield* serverAndCredentials(4)
        // The catalogue's hand-written valid bodies (its paths are not used here), by route pattern.
        const placeholders = { liveChallengeIds: [1], endedChallengeId: 1, cardIds: ["-"], accountNumbers: ["-"] }
        const valid = new Map(
          endpoints(placeholders, 0, seed).flatMap((endpoint) =>
            endpoint.bodies === undefined
              ? []
              : [[endpoint.name.replace(/\{(\w+)\}/g, ":$1"), endpoint.bodies] as const]
          )
        )
        const routes = payloadRoutes(20, seed, valid)
        // Read from Api.ts: the webhook and the JSON routes of every area are all here.
        assert.isAtLeast(routes.length, 7)
        // NUL or invalid UTF-8 inside a string: refused on every route, whatever the URL says.
        const judge = judgedBy((request, answer) =>
          mustRefuse(request.label) && answer.status !== 400 ? [`expected 400, got ${answer.status}`] : []
        )
        const result = yield* campaigns(
          "schema-derived bodies",
          routes.map((route, index) => ({
            arbitrary: schemaBodyRequest(route, base, credentials),
            runs: FuzzProfile.cases(30),
            seed: seed + 400 + index
          })),
          judge
        )
        assert.deepStrictEqual(loggedErrors, [], "the server logged errors while answering")
        for (const route of routes) {
          assert.isAbove(
            count(result, route.name, (status) => status === 400),
            0,
            `${route.name} never answered 400`
          )
        }
      }),
    timeout
  )

  it.effect(
    "the webhook refuses every unsigned or wrongly signed body with a 401 and stores nothing",
    () =>
      Effect.gen(function* () {
        const { before, after } = yield* webhookCampaign(
          "unsigned webhook",
          unsignedWebhook,
          100,
          (request, answer) => {
            const expected = (request.body?.bytes.length ?? 0) > MAX_BODY ? 413 : 401
            return answer.status !== expected ? [`expected ${expected}, got ${answer.status}`] : []
          }
        )
        assert.deepStrictEqual(after, before, "an unverified delivery was stored")
      }),
    timeout
  )

  it.effect(
    "the webhook answers every signed body, however broken, with 200 or 400 and dead-letters each 400",
    () =>
      Effect.gen(function* () {
        const { result, before, after } = yield* webhookCampaign(
          "signed webhook",
          signedWebhook,
          200,
          (request, answer) => {
            const allowed = (request.body?.bytes.length ?? 0) > MAX_BODY ? [413] : [200, 400]
            return [
              ...(allowed.includes(answer.status) ? [] : [`expected ${allowed.join(" or ")}, got ${answer.status}`]),
              ...(answer.status === 400 && !answer.text.includes('"errors"') ? ["a 400 without errors"] : [])
            ]
          }
        )
        const endpoint = Object.keys(result.statuses)[0] as string
        assert.strictEqual(
          after.deadLetters - before.deadLetters,
          count(result, endpoint, (status) => status === 400),
          "every refused signed body is dead-lettered, and only those"
        )
        assert.isAtMost(
          after.events - before.events,
          count(result, endpoint, (status) => status === 200)
        )
        assert.isAbove(
          count(result, endpoint, (status) => status === 200),
          0
        )
      }),
    timeout
  )

  it.effect(
    "raw requests that bend HTTP/1.1 itself get an answer, never a 5xx, and every 4xx has the envelope",
    () =>
      Effect.gen(function* () {
        const port = Number(new URL(yield* baseUrl).port)
        const credentials = yield* Effect.promise(() => makeCredentials(1))
        const requests = fc.sample(rawRequest(credentials), { seed: seed + 300, numRuns: FuzzProfile.cases(200) })
        const started = Date.now()
        const findings: Array<string> = []
        let next = 0
        const worker = async () => {
          while (next < requests.length) {
            const request = requests[next++] as (typeof requests)[number]
            const exchange = await sendRaw(port, request)
            const problems = rawAnswerProblems(request, parseResponse(exchange.bytes))
            if (problems.length > 0) {
              findings.push(
                `${problems.join("; ")} (${request.label})\n  sent ${JSON.stringify(request.bytes.toString("latin1").slice(0, 300))}\n  got ${JSON.stringify(exchange.bytes.toString("latin1").slice(0, 300))}`
              )
            }
          }
        }
        yield* Effect.promise(() => Promise.all(Array.from({ length: CONCURRENCY }, worker)))
        console.log(`[fuzz] raw requests: ${requests.length} in ${Date.now() - started} ms (${FuzzProfile.describe()})`)
        const distinct = [...new Map(findings.map((finding) => [finding.split(" (")[0], finding])).values()]
        assert.deepStrictEqual(findings.length, 0, `\n${distinct.slice(0, 10).join("\n\n")}`)
      }),
    timeout
  )

  // Minimal cases of what the fuzz found; each names the rule it checks.
  it.effect("a 415 answers its JSON envelope with Content-Type application/json", () =>
    Effect.gen(function* () {
      const { base, credentials } = yield* serverAndCredentials(1)
      const response = yield* Effect.promise(() =>
        fetch(`${base}/v1/user/cards`, {
          method: "POST",
          headers: { authorization: `Bearer ${credentials.users[0]}`, "content-type": "text/plain" },
          body: "{}"
        })
      )
      assert.strictEqual(response.status, 415)
      assert.strictEqual(response.headers.get("content-type"), "application/json")
    })
  )

  // The service routes on the path alone, so a request without Host is served (Node would refuse
  // it with a bare 400, outside the envelope).
  it.effect("an HTTP/1.1 request without Host is served like any other", () =>
    Effect.gen(function* () {
      const response = yield* rawAnswer("GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n")
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.headers["content-type"], "application/json")
      assert.deepInclude(JSON.parse(response.body || "null"), { status: 200, success: true })
    })
  )

  // An expectation the service cannot meet is ignored and the request answered as usual (Node's own
  // answer would be a bare 417); an unknown route is then a 404 in the route's envelope.
  it.effect("an Expect header other than 100-continue is ignored and the request answered normally", () =>
    Effect.gen(function* () {
      const response = yield* rawAnswer("GET /nowhere HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nConnection: close\r\n\r\n")
      assert.strictEqual(response.status, 404)
      assert.strictEqual(response.headers["content-type"], "application/json")
      assert.deepInclude(JSON.parse(response.body || "null"), { status: 404, success: false, data: null })
    })
  )
})
