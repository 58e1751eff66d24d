import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schedule } from "effect"
import { deliverWebhook, request, TEST_SECRETS, TestServer, tokenFor } from "../../support/TestServer.ts"

interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string | undefined
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: { readonly stringValue?: string } }>
}

/** A local OTLP/HTTP collector: records every span POSTed to /v1/traces (JSON), answers 200. */
const collector = Effect.acquireRelease(
  Effect.callback<{ server: Server; spans: Array<OtlpSpan>; paths: Array<string> }>((resume) => {
    const spans: Array<OtlpSpan> = []
    const paths: Array<string> = []
    const server = createServer((incoming, outgoing) => {
      let body = ""
      incoming.setEncoding("utf8")
      incoming.on("data", (chunk: string) => {
        body += chunk
      })
      incoming.on("end", () => {
        paths.push(`${incoming.method} ${incoming.url}`)
        if (incoming.method === "POST" && incoming.url === "/v1/traces") {
          const data = JSON.parse(body) as {
            resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<OtlpSpan> }> }>
          }
          for (const resource of data.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans)
        }
        outgoing.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, spans, paths })))
  }),
  ({ server }) => Effect.sync(() => server.close())
)

const attribute = (span: OtlpSpan, key: string) => span.attributes.find((entry) => entry.key === key)?.value.stringValue

/** The spans of one trace, once `ready` holds of them (the exporter sends every 50 ms here; up to 30 s on a loaded machine). */
const awaitTrace = (spans: Array<OtlpSpan>, ready: (spans: Array<OtlpSpan>) => OtlpSpan | undefined) =>
  Effect.suspend(() => {
    const root = ready(spans)
    return root === undefined ? Effect.fail("not yet") : Effect.succeed(root)
  }).pipe(Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 600 }))

const CREDIT = JSON.stringify({
  type: "VIRTUAL-ACCOUNT",
  event: "VIRTUAL-ACCOUNT-INFLOW",
  data: {
    fee: "0",
    date: "2026-11-21T18:30:12Z",
    type: "CREDIT",
    amount: "100.00",
    source: { account_name: "ADA OKAFOR", account_number: "2212345678" },
    status: "SUCCESSFUL",
    currency: "NGN",
    receiver: { bank_name: "Providus Bank", account_name: "WALLET/ADA", account_number: "9900000001" },
    reference: "OTLP-TRACE-1",
    account_number: "9900000001",
    settled_amount: "100.00"
  }
})

describe("OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT)", () => {
  it.live(
    "a webhook's request span with its SQL spans as descendants, a push provider call, a traceparent continued: at a local collector",
    () =>
      Effect.gen(function* () {
        const { server, spans, paths } = yield* collector
        const { port } = server.address() as AddressInfo
        const context = yield* Layer.build(
          Layer.fresh(
            TestServer({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: "50" })
          )
        )
        const served = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideContext(effect, context)

        const delivered = yield* served(deliverWebhook(CREDIT))
        assert.strictEqual(delivered.status, 200, delivered.text)

        const byId = new Map<string, OtlpSpan>()
        // The server's span of the webhook request, with the SQL it ran below it.
        const webhook = yield* awaitTrace(spans, (all) => {
          const root = all.find(
            (span) => span.kind === 2 && attribute(span, "url.path") === "/v1/webhook/core-banking/provider"
          )
          if (root === undefined) return undefined
          const sql = all.filter((span) => span.traceId === root.traceId && attribute(span, "db.system.name"))
          return sql.length > 0 ? root : undefined
        })
        for (const span of spans) byId.set(span.spanId, span)
        assert.strictEqual(webhook.parentSpanId ?? "", "", "a request without traceparent starts a trace")
        const inTrace = spans.filter((span) => span.traceId === webhook.traceId)
        const sql = inTrace.filter((span) => attribute(span, "db.system.name") === "postgresql")
        assert.isNotEmpty(sql)
        // Every span of the trace descends from the request's: parent ids lead up to it.
        for (const span of inTrace) {
          let current: OtlpSpan | undefined = span
          const chain: Array<string> = []
          while (current !== undefined && current.spanId !== webhook.spanId) {
            chain.push(current.name)
            current = current.parentSpanId ? byId.get(current.parentSpanId) : undefined
          }
          assert.isDefined(current, `${span.name} does not descend from the request span (${chain.join(" <- ")})`)
        }
        assert.isTrue(
          sql.some((span) => /webhook_events/i.test(attribute(span, "db.query.text") ?? "")),
          "the webhook's own statement is among them"
        )

        // A push provider's call is a span of its request's trace.
        const pushed = yield* served(
          request("/v1/debug/push-direct", {
            method: "POST",
            token: yield* tokenFor("otlp-user"),
            headers: { "x-internal-key": TEST_SECRETS.INTERNAL_API_KEY },
            body: { tokenType: "FCM", token: "fcm-device-token-1", title: "Hello", body: "A traced push" }
          })
        )
        assert.strictEqual(pushed.status, 200, pushed.text)
        const pushRequest = yield* awaitTrace(spans, (all) => {
          const root = all.find((span) => span.kind === 2 && attribute(span, "url.path") === "/v1/debug/push-direct")
          return root !== undefined &&
            all.some((span) => span.traceId === root.traceId && span.name === "PushService.send")
            ? root
            : undefined
        })
        assert.isDefined(pushRequest)

        // A caller's traceparent is continued: the server's span is its child, in its trace.
        const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
        const parentId = "00f067aa0ba902b7"
        const health = yield* served(request("/healthz", { headers: { traceparent: `00-${traceId}-${parentId}-01` } }))
        assert.strictEqual(health.status, 200)
        const continued = yield* awaitTrace(spans, (all) =>
          all.find((span) => span.kind === 2 && attribute(span, "url.path") === "/healthz")
        )
        assert.strictEqual(continued.traceId, traceId)
        assert.strictEqual(continued.parentSpanId, parentId)
        assert.isTrue(
          paths.every((path) => path === "POST /v1/traces"),
          paths.join(", ")
        )
      }).pipe(Effect.scoped),
    60_000
  )
})
