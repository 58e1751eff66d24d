import { assert } from "@effect/vitest"
import { signWebhook } from "@payments-gaming/adapters/test/support/TestSecrets"
import { credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { deliverWebhook, request, tokenFor } from "../../support/TestServer.ts"

export { credit, signWebhook, unique }

/** An outbox row as the tests read it. */
export interface OutboxRow {
  readonly id: string
  readonly device_id: string
  readonly event_key: string
  readonly template_code: string
  readonly title: string
  readonly body: string
  readonly status: string
  readonly attempts: number
  readonly last_error: string | null
  readonly provider_message_id: string | null
}

/** The user's outbox rows, oldest event first, then in the order of `deviceIds` (registration order). */
export const outboxOf = (user: { readonly userId: string; readonly deviceIds: ReadonlyArray<string> }) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<
        OutboxRow & { readonly created_at: Date }
      >`SELECT id, device_id, event_key, template_code, title, body, status,
        attempts, last_error, provider_message_id, created_at FROM notification_outbox WHERE user_id = ${user.userId}`
  ).pipe(
    Effect.map((rows) =>
      rows
        .toSorted(
          (a, b) =>
            a.created_at.getTime() - b.created_at.getTime() ||
            user.deviceIds.indexOf(a.device_id) - user.deviceIds.indexOf(b.device_id)
        )
        .map(({ created_at: _, ...row }): OutboxRow => row)
    )
  )

/**
 * Polls `check` until it holds (every 50 ms, for at most `limit`): the worker runs on its own
 * schedule, so tests wait for the state they expect rather than for a time.
 */
export const eventually = <A, E, R>(
  label: string,
  read: Effect.Effect<A, E, R>,
  check: (value: A) => boolean,
  limit: Duration.Input = "20 seconds"
) =>
  Effect.gen(function* () {
    const deadline = Date.now() + Duration.toMillis(Duration.fromInputUnsafe(limit))
    for (;;) {
      const value = yield* read
      if (check(value)) return value
      if (Date.now() > deadline) return assert.fail(`${label}: not reached; last seen ${JSON.stringify(value)}`)
      yield* Effect.sleep("50 millis")
    }
  })

/** A user with a linked NGN virtual account and the given devices, registered over HTTP. */
export const userWithDevices = (
  devices: ReadonlyArray<{ readonly tokenType: "FCM" | "APNS"; readonly token: string }>
) =>
  Effect.gen(function* () {
    const userId = unique("notified")
    const accountNumber = unique("VA")
    const admin = yield* tokenFor("ops", ["admin"])
    const linked = yield* request(`/v1/admin/virtual-accounts/${accountNumber}`, {
      method: "PUT",
      token: admin,
      body: { userId, currency: "NGN" }
    })
    assert.strictEqual(linked.status, 201, linked.text)
    const bearer = yield* tokenFor(userId)
    const deviceIds: Array<string> = []
    for (const device of devices) {
      const registered = yield* request("/v1/user/devices", { method: "PUT", token: bearer, body: device })
      assert.strictEqual(registered.status, 201, registered.text)
      deviceIds.push(registered.json.data.deviceId)
    }
    return { userId, accountNumber, bearer, deviceIds }
  })

/** A signed deposit of 5000.75 NGN (4950.50 credited) to `accountNumber`, from JOHN DOE. */
export const depositBody = (accountNumber: string, reference = unique("VA-REF")) =>
  JSON.stringify(credit({ reference, accountNumber, data: { sender_account_name: "JOHN DOE" } }))

export const deposit = (body: string) =>
  Effect.map(deliverWebhook(body), (answer) => assert.strictEqual(answer.status, 200, answer.text))

/**
 * `deposit` as the provider makes it while the database is failing: a 503 is delivered again (after
 * 200 ms, up to 20 times) until it is taken. The webhook is idempotent, so nothing is credited twice.
 */
export const depositUntilTaken = (body: string) =>
  Effect.gen(function* () {
    for (let attempt = 1; ; attempt++) {
      const answer = yield* deliverWebhook(body)
      if (answer.status === 200 || attempt === 20) return assert.strictEqual(answer.status, 200, answer.text)
      yield* Effect.sleep("200 millis")
    }
  })

export const DEPOSIT_TEXT = { title: "Money received", body: "You received ₦4,950.50 from JOHN DOE" }
