import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe } from "@effect/vitest"
import { generateTypes } from "@payments-gaming/openapi-typegen"
import { Effect } from "effect"
import createClient from "openapi-fetch"
import { baseUrl, request, signWebhook, TEST_SECRETS, tokenFor, withTestServer } from "../../support/TestServer.ts"
import type { paths } from "./generated/openapi.d.ts"

/**
 * A client generated from the served OpenAPI document, as an integrator would make one:
 * openapi-typescript's declarations (committed in ./generated, `npm run openapi:types`) and
 * openapi-fetch, under this repository's strict TypeScript (`npm run typecheck` checks this file).
 * It calls every user and admin endpoint, each with its typed parameters and body, and no cast.
 */

const TYPES = join(import.meta.dirname, "generated", "openapi.d.ts")
const OWN_SOURCE = join(import.meta.dirname, "client.test.ts")

const clientFor = (base: string, token: string, extra: Record<string, string> = {}) =>
  createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${token}`, ...extra } })

/** The call's answer, checked to be `status`; its body. */
const expect = <R extends { readonly response: Response; readonly data?: unknown; readonly error?: unknown }>(
  call: () => Promise<R>,
  status: number
) =>
  Effect.promise(call).pipe(
    Effect.map((result) => {
      assert.strictEqual(result.response.status, status, `${result.response.url}: ${JSON.stringify(result.error)}`)
      return result
    })
  )

describe("a client generated from the OpenAPI document (openapi-typescript + openapi-fetch)", () => {
  withTestServer("60 seconds")((it) => {
    it.effect("its declarations are those of the document the service serves (else: npm run openapi:types)", () =>
      Effect.gen(function* () {
        const served = yield* request("/openapi.json")
        const fresh = yield* Effect.promise(() => generateTypes(served.json))
        assert.isTrue(fresh === readFileSync(TYPES, "utf8"), "stale: run npm run openapi:types")
      })
    )

    it.effect("this client casts nothing", () =>
      Effect.sync(() => {
        const calls = readFileSync(OWN_SOURCE, "utf8").split("describe(")[1] ?? ""
        assert.notMatch(calls, /\bas (unknown|any|never|const|[A-Z{[(])|@ts-(ignore|expect-error)|<any>/)
      })
    )

    it.effect(
      "calls every user and admin endpoint with typed parameters and bodies, against the real server",
      () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const user = clientFor(base, yield* tokenFor("generated-client-user"))
          const admin = clientFor(base, yield* tokenFor("generated-client-admin", ["admin"]))
          const internal = clientFor(base, yield* tokenFor("generated-client-user"), {
            "X-Internal-Key": TEST_SECRETS.INTERNAL_API_KEY
          })
          const anonymous = createClient<paths>({ baseUrl: base })

          // System.
          const health = yield* expect(() => anonymous.GET("/healthz"), 200)
          assert.strictEqual(health.data?.data.status, "ok")
          const ready = yield* expect(() => anonymous.GET("/readyz"), 200)
          assert.strictEqual(ready.data?.data.database, "ok")

          // Push.
          const push = yield* expect(
            () =>
              internal.POST("/v1/debug/push-direct", {
                body: { tokenType: "FCM", token: "fcm-device-token-1", title: "Hello", body: "A test push" }
              }),
            200
          )
          assert.strictEqual(push.data?.success, true)

          // Trivia.
          const challenge = {
            title: "Friday quiz",
            prizeAmount: 50000,
            startTime: "2026-12-05T18:00:00Z",
            endTime: "2099-12-05T19:00:00Z",
            questionType: 1,
            questionCount: 10,
            numberOfWinners: 3,
            sharingFormula: "PROPORTIONAL"
          } satisfies paths["/v1/gaming/trivia/challenges"]["post"]["requestBody"]["content"]["application/json"]
          const created = yield* expect(() => admin.POST("/v1/gaming/trivia/challenges", { body: challenge }), 201)
          const challengeId = String(created.data?.data.id)
          yield* expect(
            () =>
              admin.PUT("/v1/gaming/trivia/challenges/{challengeId}", {
                params: { path: { challengeId } },
                body: { ...challenge, prizeAmount: 75000 }
              }),
            200
          )
          const got = yield* expect(
            () => user.GET("/v1/gaming/trivia/challenges/{challengeId}", { params: { path: { challengeId } } }),
            200
          )
          assert.strictEqual(got.data?.data.prizeAmount, 75000)
          const challenges = yield* expect(
            () => user.GET("/v1/gaming/trivia/challenges", { params: { query: { limit: 10, offset: 0 } } }),
            200
          )
          assert.lengthOf(challenges.data?.data ?? [], 1)

          // Devices, before the credit, so that it is notified.
          const device = yield* expect(
            () =>
              user.PUT("/v1/user/devices", {
                body: { tokenType: "FCM", token: `fcm:${"generated-client".padEnd(64, "x")}`, platform: "android" }
              }),
            201
          )
          const devices = yield* expect(() => user.GET("/v1/user/devices"), 200)
          assert.lengthOf(devices.data?.data ?? [], 1)

          // Banking: a credit that arrives before its account is linked, then replayed.
          type Notification =
            paths["/v1/webhook/core-banking/provider"]["post"]["requestBody"]["content"]["application/json"]
          const credit: Notification = JSON.parse(
            readFileSync(
              join(import.meta.dirname, "..", "..", "..", "examples/webhooks/virtual-account-credit.json"),
              "utf8"
            )
          )
          const text = JSON.stringify(credit)
          const delivered = yield* expect(
            () =>
              anonymous.POST("/v1/webhook/core-banking/provider", {
                body: credit,
                // The signature covers the exact bytes sent.
                bodySerializer: () => text,
                headers: { "X-Provider-Signature": signWebhook(text) }
              }),
            200
          )
          assert.strictEqual(delivered.data?.data, "OK")
          const events = yield* expect(
            () => admin.GET("/v1/admin/webhook-events", { params: { query: { status: "unmatched", limit: 10 } } }),
            200
          )
          const eventId = events.data?.data.items[0]?.id ?? ""
          const detail = yield* expect(
            () => admin.GET("/v1/admin/webhook-events/{id}", { params: { path: { id: eventId } } }),
            200
          )
          assert.strictEqual(detail.data?.data.bodyEncoding, "utf8")
          yield* expect(
            () =>
              admin.PUT("/v1/admin/virtual-accounts/{accountNumber}", {
                params: { path: { accountNumber: "9900112233" } },
                body: { userId: "generated-client-user", currency: "NGN" }
              }),
            201
          )
          const replayed = yield* expect(
            () => admin.POST("/v1/admin/webhook-events/{id}/replay", { params: { path: { id: eventId } } }),
            200
          )
          assert.strictEqual(replayed.data?.data.outcome, "processed")
          yield* expect(() => admin.POST("/v1/admin/webhook-events/replay", { body: { outcome: "unmatched" } }), 200)
          const deadLetters = yield* expect(
            () => admin.GET("/v1/admin/dead-letters", { params: { query: { limit: 5 } } }),
            200
          )
          assert.isArray(deadLetters.data?.data.items)
          const transfer = yield* expect(
            () =>
              admin.POST("/v1/admin/transfers", {
                body: { reference: "TRF-CLIENT-1", userId: "generated-client-user", amount: "1500.00", currency: "NGN" }
              }),
            201
          )
          assert.strictEqual(transfer.data?.data.status, "PENDING")
          const wallet = yield* expect(() => user.GET("/v1/wallet"), 200)
          assert.deepStrictEqual(wallet.data?.data.balances, [{ currency: "NGN", available: "3450.50" }])
          const statement = yield* expect(
            () => user.GET("/v1/wallet/transactions", { params: { query: { limit: 1, currency: "NGN" } } }),
            200
          )
          const cursor = statement.data?.data.nextCursor ?? undefined
          assert.isDefined(cursor)
          const older = yield* expect(
            () =>
              admin.GET("/v1/admin/users/{userId}/transactions", {
                params: { path: { userId: "generated-client-user" }, query: { limit: 10, cursor } }
              }),
            200
          )
          assert.strictEqual(older.data?.data.items[0]?.kind, "deposit")

          // Notifications: the credit's, one per device.
          const notifications = yield* expect(
            () => admin.GET("/v1/admin/notifications", { params: { query: { limit: 10, offset: 0 } } }),
            200
          )
          const notificationId = notifications.data?.data[0]?.id ?? ""
          yield* expect(
            () => admin.POST("/v1/admin/notifications/{id}/retry", { params: { path: { id: notificationId } } }),
            200
          )
          yield* expect(() => admin.POST("/v1/admin/notifications/retry", { body: { status: "failed" } }), 200)

          // Spin and win.
          const wheel = yield* expect(() => user.GET("/v1/spin-and-win"), 200)
          assert.lengthOf(wheel.data?.data.segments ?? [], 8)
          yield* expect(() => user.GET("/v1/spin-and-win/client-seed"), 200)
          yield* expect(() => user.PUT("/v1/spin-and-win/client-seed", { body: { clientSeed: "my lucky seed" } }), 200)
          const spin = yield* expect(
            () => user.POST("/v1/spin-and-win/spin", { params: { header: { "idempotency-key": "client-spin-1" } } }),
            200
          )
          assert.strictEqual(spin.data?.data.clientSeed, "my lucky seed")
          const round = spin.response.headers.get("X-Spin-Round") ?? ""
          // The round still runs: 409, typed as an error answer.
          const running = yield* expect(
            () => user.GET("/v1/spin-and-win/rounds/{round}", { params: { path: { round }, query: { limit: 10 } } }),
            409
          )
          assert.strictEqual(running.error?.success, false)

          // Cards.
          const card = yield* expect(
            () =>
              user.POST("/v1/user/cards", {
                body: {
                  cardholderName: "Ada Okafor",
                  cardNumber: "5555555555554444",
                  expiryMonth: 12,
                  expiryYear: 2030,
                  cvv: "123"
                }
              }),
            200
          )
          const cards = yield* expect(() => user.GET("/v1/user/cards", { params: { query: { limit: 10 } } }), 200)
          assert.lengthOf(cards.data?.data ?? [], 1)
          const cardId = card.data?.data.cardId ?? ""
          const removed = yield* expect(
            () => user.DELETE("/v1/user/cards/{cardId}", { params: { path: { cardId } } }),
            200
          )
          // `data` is documented as null, a type openapi-fetch 0.17 drops from its answers' types (its
          // Readable<T> removes every property whose non-null type is never), so only the rest is read.
          assert.include(removed.data, { success: true, status: 200 })
          const deviceId = device.data?.data.deviceId ?? ""
          yield* expect(() => user.DELETE("/v1/user/devices/{deviceId}", { params: { path: { deviceId } } }), 200)
        }),
      60_000
    )
  })
})
