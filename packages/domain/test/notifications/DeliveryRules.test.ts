import { assert, describe, it } from "@effect/vitest"
import { Redacted } from "effect"
import * as fc from "fast-check"
import type { UserId } from "../../src/auth/Model.ts"
import {
  type BackoffPolicy,
  type ClaimedNotification,
  decide,
  pushMessageOf,
  retryDelayMillis,
  undeliverable
} from "../../src/notifications/index.ts"
import { failure, success } from "../../src/push/index.ts"

const policy: BackoffPolicy = { baseMillis: 2_000, capMillis: 60_000, maxAttempts: 5 }

const claimed = (overrides: Partial<ClaimedNotification> = {}): ClaimedNotification => ({
  id: "11111111-1111-4111-8111-111111111111",
  claimId: "22222222-2222-4222-8222-222222222222",
  eventKey: "virtualaccount.credit:VA-1",
  userId: "user-1" as UserId,
  deviceId: "33333333-3333-4333-8333-333333333333",
  templateCode: "DEPOSIT_RECEIVED",
  title: "Money received",
  body: "You received ₦10.00",
  attempts: 0,
  inDoubt: false,
  device: {
    deviceId: "33333333-3333-4333-8333-333333333333",
    userId: "user-1",
    tokenType: "FCM",
    token: Redacted.make("fcm-token"),
    active: true
  },
  ...overrides
})

describe("retryDelayMillis", () => {
  it("doubles per attempt from the base, up to the cap, with half of it jittered", () => {
    assert.strictEqual(retryDelayMillis(policy, 1, 0), 1_000)
    assert.strictEqual(retryDelayMillis(policy, 1, 0.999999), 2_000)
    assert.strictEqual(retryDelayMillis(policy, 2, 0), 2_000)
    assert.strictEqual(retryDelayMillis(policy, 3, 0), 4_000)
    assert.strictEqual(retryDelayMillis(policy, 20, 0), 30_000)
    assert.strictEqual(retryDelayMillis(policy, 20, 0.999999), 60_000)
  })

  it("always lies between half the capped exponential and the whole of it", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, random) => {
        const ceiling = Math.min(policy.capMillis, policy.baseMillis * 2 ** Math.min(attempt - 1, 30))
        const delay = retryDelayMillis(policy, attempt, random)
        return delay >= Math.floor(ceiling / 2) && delay <= ceiling
      })
    )
  })
})

describe("decide", () => {
  it("records the provider's message id of a success", () => {
    assert.deepStrictEqual(decide(success("projects/p/messages/1"), 1, policy, 0.5), {
      _tag: "Sent",
      providerMessageId: "projects/p/messages/1"
    })
  })

  it("backs a retryable failure off, and parks it once the attempts are used up", () => {
    const unavailable = failure("UNAVAILABLE", "503")
    assert.deepStrictEqual(decide(unavailable, 1, policy, 0), {
      _tag: "Retry",
      delayMillis: 1_000,
      error: "UNAVAILABLE: 503"
    })
    assert.deepStrictEqual(decide(unavailable, 5, policy, 0), {
      _tag: "Failed",
      error: "UNAVAILABLE: 503 (gave up after 5 attempts)"
    })
  })

  it("cancels the row of a dead token (the caller deactivates the device)", () => {
    assert.deepStrictEqual(decide(failure("UNREGISTERED", "gone"), 1, policy, 0), {
      _tag: "Cancelled",
      reason: "UNREGISTERED: gone",
      attempted: true
    })
  })

  it("parks a refusal no retry can fix at once", () => {
    assert.deepStrictEqual(decide(failure("AUTH_ERROR", "bad key"), 1, policy, 0), {
      _tag: "Failed",
      error: "AUTH_ERROR: bad key"
    })
  })
})

describe("pushMessageOf and undeliverable", () => {
  it("addresses the device and puts notificationId and templateCode in data (spec 2.2)", () => {
    const notification = claimed()
    assert.deepStrictEqual(pushMessageOf(notification, notification.device!), {
      tokenType: "FCM",
      token: "fcm-token",
      title: "Money received",
      body: "You received ₦10.00",
      data: { notificationId: notification.id, templateCode: "DEPOSIT_RECEIVED" }
    })
  })

  it("cancels without sending when the device is inactive or gone", () => {
    assert.isNull(undeliverable(claimed()))
    assert.deepStrictEqual(undeliverable(claimed({ device: null })), {
      _tag: "Cancelled",
      reason: "device removed",
      attempted: false
    })
    const moved = claimed()
    assert.deepStrictEqual(undeliverable(claimed({ device: { ...moved.device!, userId: "user-2" } })), {
      _tag: "Cancelled",
      reason: "device moved to another user",
      attempted: false
    })
    const inactive = claimed()
    assert.deepStrictEqual(undeliverable(claimed({ device: { ...inactive.device!, active: false } })), {
      _tag: "Cancelled",
      reason: "device deactivated",
      attempted: false
    })
  })
})
