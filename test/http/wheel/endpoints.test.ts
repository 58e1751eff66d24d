import { createHash, createHmac, randomUUID } from "node:crypto"
import { assert, describe } from "@effect/vitest"
import * as LedgerRecorderPostgres from "@payments-gaming/adapters/postgres/LedgerRecorderPostgres"
import * as SpinRepository from "@payments-gaming/adapters/postgres/SpinRepository"
import * as WheelRoundSeeds from "@payments-gaming/adapters/postgres/WheelRoundSeeds"
import * as NodeSeedCrypto from "@payments-gaming/adapters/wheel/NodeSeedCrypto"
import type { UserId } from "@payments-gaming/domain/auth"
import { unique } from "@payments-gaming/domain/test/support/fixtures"
import { WheelTesting } from "@payments-gaming/domain/testing"
import {
  defaultClientSeed,
  defaultWheel,
  drawFromBytes,
  ProvablyFair,
  type RoundId,
  Spin,
  type SpinId,
  segmentAt
} from "@payments-gaming/domain/wheel"
import { DateTime, Effect, Option, Redacted } from "effect"
import { request, tokenFor, withTestServer } from "../../support/TestServer.ts"

const EXPECTED_SEGMENTS = [
  { id: "seg-₦50", label: "₦50", value: 50, type: "cash" },
  { id: "seg-10coins", label: "10 coins", value: 10, type: "coin" },
  { id: "seg-₦100", label: "₦100", value: 100, type: "cash" },
  { id: "seg-20coins", label: "20 coins", value: 20, type: "coin" },
  { id: "seg-tryagain", label: "Try again", value: 0, type: "cash" },
  { id: "seg-₦500", label: "₦500", value: 500, type: "cash" },
  { id: "seg-50coins", label: "50 coins", value: 50, type: "coin" },
  { id: "seg-₦1,000", label: "₦1,000", value: 1000, type: "cash" }
]

/** Seconds left until the next midnight in Africa/Lagos (UTC+1 all year). */
const secondsToLagosMidnight = () => {
  const lagos = Date.now() + 3_600_000
  return Math.ceil((86_400_000 - (lagos % 86_400_000)) / 1000)
}
const seconds = (hhmmss: string) => {
  const [h, m, s] = hhmmss.split(":").map(Number) as [number, number, number]
  return h * 3600 + m * 60 + s
}

const spin = (token: string, key?: string) =>
  request("/v1/spin-and-win/spin", {
    method: "POST",
    token,
    ...(key === undefined ? {} : { headers: { "idempotency-key": key } })
  })

/**
 * A finished round in the server's database, written through the production adapters: a seed, and
 * one spin per player drawn from it exactly as the service draws (the server's clock is real, so
 * a round cannot be spun in and then finished within a test).
 */
const finishedRound = (round: string, players: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const seeds = yield* WheelRoundSeeds.make
    const spins = yield* SpinRepository.make
    const recorder = yield* LedgerRecorderPostgres.make
    const crypto = NodeSeedCrypto.make
    const seedBytes = new Uint8Array(createHash("sha256").update(`seed of ${round}`).digest())
    const createdAt = DateTime.makeUnsafe(`${round}T12:00:00Z`)
    const seed = yield* seeds.getOrCreate(
      round as RoundId,
      Effect.map(ProvablyFair.commitmentOf(crypto, seedBytes), (commitment) => ({
        round: round as RoundId,
        seed: Redacted.make(seedBytes),
        commitment,
        createdAt
      }))
    )
    const segments = defaultWheel("NGN").segments
    const recorded = yield* Effect.forEach(players, (userId, index) =>
      Effect.gen(function* () {
        const clientSeed = yield* defaultClientSeed(crypto, userId as UserId)
        const value = yield* ProvablyFair.drawValue(crypto, seedBytes, { clientSeed, userId, nonce: 0 }, 100)
        const segment = segmentAt(segments, value)
        const spin = new Spin({
          spinId: randomUUID() as SpinId,
          userId: userId as UserId,
          round: round as RoundId,
          wheelVersion: 1,
          clientSeed,
          nonce: 0,
          drawValue: value,
          segmentId: segment.id,
          prize: segment.prize,
          createdAt: DateTime.add(createdAt, { minutes: index }),
          idempotencyKey: null
        })
        yield* recorder.record(spins.spun(spin, WheelTesting.alwaysOpen))
        return spin
      })
    )
    return { commitment: seed.commitment, spins: recorded }
  })

describe("spin-and-win over HTTP", () => {
  withTestServer("120 seconds")((it) => {
    it.effect("GET answers exactly the spec's shape: eight segments in order, epoch envelope, countdown", () =>
      Effect.gen(function* () {
        const response = yield* request("/v1/spin-and-win", { token: yield* tokenFor(unique("viewer")) })
        assert.strictEqual(response.status, 200)
        assert.deepStrictEqual(Object.keys(response.json), ["timestamp", "status", "success", "message", "data"])
        assert.match(response.json.timestamp, /^\d{13}$/)
        assert.match(response.json.message, /segments fetched/i)
        assert.deepStrictEqual(Object.keys(response.json.data), ["coinBalance", "expiresIn", "segments"])
        assert.strictEqual(response.json.data.coinBalance, 0)
        assert.deepStrictEqual(response.json.data.segments, EXPECTED_SEGMENTS)
        for (const segment of response.json.data.segments)
          assert.deepStrictEqual(Object.keys(segment), ["id", "label", "value", "type"])
        assert.notInclude(response.text, "weight")
        assert.match(response.json.data.expiresIn, /^\d{2}:[0-5]\d:[0-5]\d$/)
        assert.approximately(seconds(response.json.data.expiresIn), secondsToLagosMidnight(), 3)
        assert.match(response.headers.get("x-round-commitment") ?? "", /^[0-9a-f]{64}$/)
        assert.match(response.headers.get("x-spin-round") ?? "", /^\d{4}-\d{2}-\d{2}$/)
      })
    )

    it.effect("a coin prize moves the coin balance and a cash prize the NGN wallet, once per user per round", () =>
      Effect.gen(function* () {
        const seen = new Set<string>()
        for (let i = 0; i < 40 && seen.size < 2; i++) {
          const userId = unique("spinner")
          const token = yield* tokenFor(userId)
          const response = yield* spin(token)
          assert.strictEqual(response.status, 200)
          assert.deepStrictEqual(Object.keys(response.json.data), [
            "segment",
            "coinBalance",
            "expiresIn",
            "clientSeed",
            "nonce"
          ])
          const segment = response.json.data.segment
          const wallet = yield* request("/v1/wallet", { token })
          const ngn = wallet.json.data.balances.find((b: { currency: string }) => b.currency === "NGN")?.available
          if (segment.type === "coin") {
            assert.strictEqual(response.json.data.coinBalance, segment.value)
            assert.strictEqual(wallet.json.data.coinBalance, segment.value)
            seen.add("coin")
          } else {
            assert.strictEqual(response.json.data.coinBalance, 0)
            assert.strictEqual(ngn ?? "0.00", `${segment.value}.00`)
            if (segment.value > 0) seen.add("cash")
          }
          const view = yield* request("/v1/spin-and-win", { token })
          assert.strictEqual(view.json.data.coinBalance, response.json.data.coinBalance)
          const second = yield* spin(token)
          assert.strictEqual(second.status, 409)
          assert.strictEqual(second.json.success, false)
        }
        assert.deepStrictEqual([...seen].sort(), ["cash", "coin"])
      })
    )

    it.effect("a repeated Idempotency-Key returns the first result", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor(unique("idem"))
        const first = yield* spin(token, "key-1")
        const again = yield* spin(token, "key-1")
        assert.strictEqual(first.status, 200)
        assert.strictEqual(again.status, 200)
        // The same spin again (the countdown has moved on by the time of the second call).
        assert.deepStrictEqual(again.json.data.segment, first.json.data.segment)
        assert.strictEqual(again.json.data.coinBalance, first.json.data.coinBalance)
        assert.strictEqual(again.headers.get("x-spin-id"), first.headers.get("x-spin-id"))
        assert.strictEqual((yield* spin(token, "key-2")).status, 409)
      })
    )

    it.effect("exactly one of 20 concurrent spins by one user succeeds", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor(unique("racer"))
        const answers = yield* Effect.all(
          Array.from({ length: 20 }, () => spin(token)),
          { concurrency: "unbounded" }
        )
        const statuses = answers.map((answer) => answer.status).sort()
        assert.deepStrictEqual(statuses, [200, ...Array(19).fill(409)])
      })
    )

    it.effect("the current round's seed is not revealed; an unknown round is 404; both need a bearer", () =>
      Effect.gen(function* () {
        const token = yield* tokenFor(unique("auditor"))
        const view = yield* request("/v1/spin-and-win", { token })
        const round = view.headers.get("x-spin-round")
        const current = yield* request(`/v1/spin-and-win/rounds/${round}`, { token })
        assert.strictEqual(current.status, 409)
        assert.notInclude(current.text, 'seed":')
        assert.strictEqual((yield* request("/v1/spin-and-win/rounds/2001-01-01", { token })).status, 404)
        assert.strictEqual((yield* request("/v1/spin-and-win/rounds/not-a-day", { token })).status, 400)
        assert.strictEqual((yield* request("/v1/spin-and-win")).status, 401)
        assert.strictEqual((yield* request("/v1/spin-and-win/spin", { method: "POST" })).status, 401)
      })
    )

    it.effect("client seed: a derived default, PUT sets it for the next spin with nonce 0, bad seeds are 400", () =>
      Effect.gen(function* () {
        const userId = unique("seeder")
        const token = yield* tokenFor(userId)
        const fallback = createHash("sha256").update(userId).digest("hex").slice(0, 32)
        const initial = yield* request("/v1/spin-and-win/client-seed", { token })
        assert.strictEqual(initial.status, 200)
        assert.deepStrictEqual(Object.keys(initial.json), ["timestamp", "status", "success", "message", "data"])
        assert.deepStrictEqual(initial.json.data, { clientSeed: fallback, nonce: 0 })

        const put = (body: unknown) => request("/v1/spin-and-win/client-seed", { method: "PUT", token, body })
        const set = yield* put({ clientSeed: "  my seed: ~!@#$%^&*() " })
        assert.strictEqual(set.status, 200)
        assert.strictEqual(set.json.success, true)
        assert.deepStrictEqual(set.json.data, { clientSeed: "  my seed: ~!@#$%^&*() ", nonce: 0 })
        assert.deepStrictEqual((yield* put({ clientSeed: "x".repeat(64) })).json.data, {
          clientSeed: "x".repeat(64),
          nonce: 0
        })

        for (const bad of [
          {},
          { clientSeed: "" },
          { clientSeed: "x".repeat(65) },
          { clientSeed: "naïve" },
          { clientSeed: "tab\there" },
          { clientSeed: "new\nline" },
          { clientSeed: 42 },
          { clientSeed: null }
        ]) {
          const refused = yield* put(bad)
          assert.strictEqual(refused.status, 400, JSON.stringify(bad))
          assert.strictEqual(refused.json.success, false)
          assert.strictEqual(refused.json.data, null)
          assert.isTrue(Array.isArray(refused.json.errors) && refused.json.errors.length > 0, refused.text)
        }
        const raw = yield* request("/v1/spin-and-win/client-seed", {
          method: "PUT",
          token,
          rawBody: "{not json",
          headers: { "content-type": "application/json" }
        })
        assert.strictEqual(raw.status, 400)
        // The refusals changed nothing.
        assert.deepStrictEqual((yield* request("/v1/spin-and-win/client-seed", { token })).json.data, {
          clientSeed: "x".repeat(64),
          nonce: 0
        })

        const spun = yield* spin(token)
        assert.strictEqual(spun.status, 200)
        assert.deepStrictEqual([spun.json.data.clientSeed, spun.json.data.nonce], ["x".repeat(64), 0])
        assert.deepStrictEqual((yield* request("/v1/spin-and-win/client-seed", { token })).json.data, {
          clientSeed: "x".repeat(64),
          nonce: 1
        })
        // The same seed again keeps the count; the spin already made keeps its seed.
        assert.deepStrictEqual((yield* put({ clientSeed: "x".repeat(64) })).json.data, {
          clientSeed: "x".repeat(64),
          nonce: 1
        })
        assert.deepStrictEqual((yield* put({ clientSeed: "fresh" })).json.data, { clientSeed: "fresh", nonce: 0 })
        assert.strictEqual((yield* request("/v1/spin-and-win/client-seed")).status, 401)
        assert.strictEqual(
          (yield* request("/v1/spin-and-win/client-seed", { method: "PUT", body: { clientSeed: "a" } })).status,
          401
        )
      })
    )

    it.effect("a finished round shows a player their own spin only, verifiable; an admin sees every spin", () =>
      Effect.gen(function* () {
        const [alice, bob] = [unique("alice"), unique("bob")]
        const round = "2026-03-14"
        const { commitment, spins } = yield* finishedRound(round, [alice, bob])
        const [aliceSpin, bobSpin] = spins as [Spin, Spin]

        const mine = yield* request(`/v1/spin-and-win/rounds/${round}`, { token: yield* tokenFor(alice) })
        assert.strictEqual(mine.status, 200)
        // Nothing of bob's: not his id, not his spin's id, anywhere in the answer.
        assert.notInclude(mine.text, bob)
        assert.notInclude(mine.text, bobSpin.spinId)
        const audit = mine.json.data
        assert.deepStrictEqual(
          audit.spins.map((spin: { spinId: string; userId: string }) => [spin.spinId, spin.userId]),
          [[aliceSpin.spinId, alice]]
        )
        assert.strictEqual(audit.commitment, commitment)
        assert.deepStrictEqual(
          audit.wheels.map((wheel: { version: number; totalWeight: number }) => [wheel.version, wheel.totalWeight]),
          [[1, 100]]
        )

        // What alice can check from this answer alone with plain node:crypto.
        const [spin] = audit.spins
        const seed = Buffer.from(audit.seed, "hex")
        assert.strictEqual(createHash("sha256").update(seed).digest("hex"), commitment)
        assert.strictEqual(spin.clientSeed, createHash("sha256").update(alice).digest("hex").slice(0, 32))
        const message = JSON.stringify([spin.clientSeed, alice, spin.nonce])
        const mac = createHmac("sha256", seed).update(message).digest()
        const draw = Option.getOrThrow(drawFromBytes(new Uint8Array(mac), audit.wheels[0].totalWeight))
        assert.strictEqual(draw, spin.drawValue)
        const range = audit.wheels[0].ranges.find(
          ({ from, to }: { from: number; to: number }) => draw >= from && draw < to
        )
        assert.strictEqual(range?.segmentId, spin.segmentId)

        const his = yield* request(`/v1/spin-and-win/rounds/${round}`, { token: yield* tokenFor(bob) })
        assert.notInclude(his.text, alice)
        assert.notInclude(his.text, aliceSpin.spinId)
        assert.deepStrictEqual(
          his.json.data.spins.map((spin: { userId: string }) => spin.userId),
          [bob]
        )

        const onlooker = yield* request(`/v1/spin-and-win/rounds/${round}`, { token: yield* tokenFor(unique("carol")) })
        assert.strictEqual(onlooker.status, 200)
        assert.strictEqual(onlooker.json.data.seed, audit.seed)
        assert.deepStrictEqual(onlooker.json.data.spins, [])
        for (const hidden of [alice, bob, aliceSpin.spinId, bobSpin.spinId]) assert.notInclude(onlooker.text, hidden)

        const admin = yield* request(`/v1/spin-and-win/rounds/${round}`, {
          token: yield* tokenFor(unique("root"), ["admin"])
        })
        assert.strictEqual(admin.status, 200)
        assert.deepStrictEqual(
          admin.json.data.spins.map((spin: { spinId: string; userId: string }) => [spin.spinId, spin.userId]),
          [
            [aliceSpin.spinId, alice],
            [bobSpin.spinId, bob]
          ]
        )
        // Another role is not the admin role.
        const support = yield* request(`/v1/spin-and-win/rounds/${round}`, {
          token: yield* tokenFor(alice, ["support"])
        })
        assert.notInclude(support.text, bob)
      })
    )
  })
})
