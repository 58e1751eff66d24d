import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, Context, DateTime, Effect, Exit, Layer, Option } from "effect"
import { Hex } from "effect/encoding"
import { TestClock } from "effect/testing"
import type { UserId } from "../../src/auth/Model.ts"
import { Account, type Cause, type CausedPosting, Ledger, LedgerRecorder } from "../../src/ledger/index.ts"
import { layerMemoryRecorder, memoryCause } from "../../src/ledger/testing.ts"
import { type ClientSeed, defaultClientSeed } from "../../src/wheel/ClientSeed.ts"
import { ClientSeeds } from "../../src/wheel/ClientSeeds.ts"
import { defaultWheel } from "../../src/wheel/DefaultWheel.ts"
import { segmentAt } from "../../src/wheel/Draw.ts"
import type { Segment } from "../../src/wheel/Model.ts"
import { commitmentOf, drawValue, verify } from "../../src/wheel/ProvablyFair.ts"
import { REVEAL_GRACE_MILLIS, type RoundId, roundOf } from "../../src/wheel/Round.ts"
import { SeedCrypto } from "../../src/wheel/SeedCrypto.ts"
import type { IdempotencyKey } from "../../src/wheel/Spin.ts"
import { SpinAndWinService } from "../../src/wheel/SpinAndWinService.ts"
import { SpinRepository } from "../../src/wheel/SpinRepository.ts"
import { layerMemory, layerMemoryPorts, layerMemorySpinRepository } from "../../src/wheel/testing.ts"
import { layerWheelCaches } from "../../src/wheel/WheelCaches.ts"
import { WheelRepository } from "../../src/wheel/WheelRepository.ts"
import { concurrentSpins } from "../support/wheelFixtures.ts"

const ROUND_SEED = Uint8Array.from({ length: 32 }, (_, index) => index * 7 + 3)
const NOON_LAGOS = DateTime.toEpochMillis(DateTime.makeUnsafe("2026-05-01T11:00:00Z"))
const Memory = layerMemory({ random: { roundSeed: ROUND_SEED } })

const user = (id: string) => id as UserId
const key = (value: string) => value as IdempotencyKey
const ADMIN = { userId: user("the-admin"), isAdmin: true }

/**
 * A user id whose first spin (default client seed, nonce 0) lands on a segment `wanted` accepts:
 * the seed is known (the deterministic random hands out ROUND_SEED for every round), so the outcome
 * can be chosen by choosing the player.
 */
const playerLandingOn = (_round: string, wanted: (segment: Segment) => boolean) =>
  Effect.gen(function* () {
    const crypto = yield* SeedCrypto
    const segments = defaultWheel("NGN").segments
    for (let index = 0; index < 10_000; index++) {
      const userId = `player-${index}`
      const clientSeed = yield* defaultClientSeed(crypto, user(userId))
      const value = yield* drawValue(crypto, ROUND_SEED, { clientSeed, userId, nonce: 0 }, 100)
      if (wanted(segmentAt(segments, value))) return { userId: user(userId), segment: segmentAt(segments, value) }
    }
    return yield* Effect.die(new Error("no player lands on the wanted segment"))
  })

const atNoon = TestClock.setTime(NOON_LAGOS)

/** The service on the in-memory ports (which stay reachable), its ledger recorder replaced by `recorder`. */
const withRecorder = <E, R>(recorder: Layer.Layer<LedgerRecorder, E, R>) =>
  SpinAndWinService.layer.pipe(
    Layer.provide(recorder),
    Layer.provideMerge(layerMemoryPorts({ random: { roundSeed: ROUND_SEED } }))
  )

/** The service, with the clock at noon in Lagos. */
const serviceAtNoon = Effect.andThen(atNoon, SpinAndWinService)

describe("SpinAndWinService.view", () => {
  it.effect("shows the eight public segments, the coin balance, the countdown and the commitment", () =>
    Effect.gen(function* () {
      const service = yield* serviceAtNoon
      const view = yield* service.view(user("alice"))
      assert.strictEqual(view.coinBalance, 0)
      assert.strictEqual(view.expiresIn, "12:00:00")
      assert.strictEqual(view.round, "2026-05-01")
      assert.deepStrictEqual(
        view.segments.map((s) => s.id),
        defaultWheel("NGN").segments.map((s) => s.id)
      )
      assert.isFalse(view.segments.some((segment) => "weight" in segment))
      assert.strictEqual(view.commitment, yield* commitmentOf(yield* SeedCrypto, ROUND_SEED))
      assert.deepStrictEqual(Object.keys(view).slice(0, 3), ["coinBalance", "expiresIn", "segments"])
    }).pipe(Effect.provide(Memory))
  )

  it.effect("counts down by the TestClock, across a 25-hour day in Europe/London", () =>
    Effect.gen(function* () {
      const service = yield* SpinAndWinService
      yield* TestClock.setTime(DateTime.toEpochMillis(DateTime.makeUnsafe("2026-10-24T23:00:00Z")))
      assert.strictEqual((yield* service.view(user("alice"))).expiresIn, "25:00:00")
      assert.strictEqual((yield* service.view(user("alice"))).round, "2026-10-25")
      yield* TestClock.adjust("2 hours")
      assert.strictEqual((yield* service.view(user("alice"))).expiresIn, "23:00:00")
      yield* TestClock.adjust((22 * 3600 + 59 * 60 + 59) * 1000)
      assert.strictEqual((yield* service.view(user("alice"))).expiresIn, "00:00:01")
      yield* TestClock.adjust("1 second")
      const next = yield* service.view(user("alice"))
      assert.deepStrictEqual([next.round, next.expiresIn], ["2026-10-26", "24:00:00"])
    }).pipe(Effect.provide(layerMemory({ timeZone: "Europe/London" })))
  )

  it.effect("re-issues the untouched default wheel in DEFAULT_CURRENCY and pays cash in it", () =>
    Effect.gen(function* () {
      const service = yield* serviceAtNoon
      const view = yield* service.view(user("alice"))
      assert.deepStrictEqual(
        view.segments.filter((s) => s.type === "cash" && s.value > 0).map((s) => s.label),
        ["$50", "$100", "$500", "$1,000"]
      )
      const active = yield* (yield* WheelRepository).active
      assert.deepStrictEqual([active.version, active.currency], [2, "USD"])
      const { userId, segment } = yield* playerLandingOn("2026-05-01", (s) => s.type === "cash" && s.value > 0)
      yield* service.spin(userId)
      const ledger = yield* Ledger
      const usd = yield* ledger.balance(Account.userCash(userId, "USD"))
      assert.isTrue(BigDecimal.equals(usd.amount, BigDecimal.fromBigInt(BigInt(segment.value))))
      assert.strictEqual((yield* ledger.balances(userId)).cash.length, 1)
    }).pipe(Effect.provide(layerMemory({ currency: "USD", random: { roundSeed: ROUND_SEED } })))
  )
})

describe("SpinAndWinService.spin", () => {
  it.effect("credits a coin prize through the ledger under the spin id", () =>
    Effect.gen(function* () {
      const service = yield* serviceAtNoon
      const { userId, segment } = yield* playerLandingOn("2026-05-01", (s) => s.type === "coin")
      const outcome = yield* service.spin(userId)
      assert.strictEqual(outcome.segment.id, segment.id)
      assert.strictEqual(outcome.coinBalance, segment.value)
      assert.strictEqual(outcome.expiresIn, "12:00:00")
      assert.isFalse(outcome.replayed)
      const posted = yield* (yield* Ledger).find(outcome.spinId)
      assert.isTrue(Option.isSome(posted))
      assert.strictEqual(Option.getOrThrow(posted).kind, "prize")
      assert.strictEqual((yield* service.view(userId)).coinBalance, segment.value)
    }).pipe(Effect.provide(Memory))
  )

  it.effect("credits a cash prize to the cash wallet in NGN, leaving coins alone", () =>
    Effect.gen(function* () {
      yield* atNoon
      const { userId, segment } = yield* playerLandingOn("2026-05-01", (s) => s.type === "cash" && s.value > 0)
      const outcome = yield* (yield* SpinAndWinService).spin(userId)
      assert.strictEqual(outcome.coinBalance, 0)
      const balances = yield* (yield* Ledger).balances(userId)
      assert.deepStrictEqual(
        balances.cash.map((money) => [money.currency, BigDecimal.format(money.amount)]),
        [["NGN", `${segment.value}`]]
      )
    }).pipe(Effect.provide(Memory))
  )

  it.effect("posts nothing for Try again", () =>
    Effect.gen(function* () {
      yield* atNoon
      const { userId } = yield* playerLandingOn("2026-05-01", (s) => s.value === 0)
      const outcome = yield* (yield* SpinAndWinService).spin(userId)
      assert.strictEqual(outcome.segment.id, "seg-tryagain")
      assert.isTrue(Option.isNone(yield* (yield* Ledger).find(outcome.spinId)))
      const recorded = yield* (yield* SpinRepository).listRound("2026-05-01" as RoundId, { limit: 10, offset: 0 })
      assert.deepStrictEqual(
        recorded.map((spin) => spin.spinId),
        [outcome.spinId]
      )
    }).pipe(Effect.provide(Memory))
  )

  it.effect("refuses a second spin in the round with AlreadySpun, and allows one in the next round", () =>
    Effect.gen(function* () {
      const service = yield* serviceAtNoon
      yield* service.spin(user("bob"))
      const second = yield* Effect.exit(service.spin(user("bob")))
      const error = Option.getOrThrow(Exit.findErrorOption(second))
      assert.strictEqual(error._tag, "AlreadySpun")
      assert.strictEqual(error.round, "2026-05-01")
      const withKey = yield* Effect.flip(service.spin(user("bob"), key("fresh-key")))
      assert.strictEqual(withKey._tag, "AlreadySpun")
      yield* TestClock.adjust("12 hours")
      const tomorrow = yield* service.spin(user("bob"))
      assert.strictEqual(tomorrow.round, "2026-05-02")
    }).pipe(Effect.provide(Memory))
  )

  it.effect("lets one of 20 concurrent spins of a user through", () =>
    Effect.gen(function* () {
      const service = yield* serviceAtNoon
      yield* concurrentSpins(service, user("carol"))
    }).pipe(Effect.provide(Memory))
  )

  it.effect("returns the first result for a repeated Idempotency-Key and credits once", () =>
    Effect.gen(function* () {
      const service = yield* serviceAtNoon
      const { userId, segment } = yield* playerLandingOn("2026-05-01", (s) => s.type === "coin")
      const first = yield* service.spin(userId, key("spin-123"))
      yield* TestClock.adjust("1 hour")
      const again = yield* service.spin(userId, key("spin-123"))
      assert.strictEqual(again.spinId, first.spinId)
      assert.deepStrictEqual(again.segment, first.segment)
      assert.strictEqual(again.coinBalance, segment.value)
      assert.strictEqual(again.expiresIn, "11:00:00")
      assert.isTrue(again.replayed)
      const both = yield* Effect.all([service.spin(userId, key("spin-123")), service.spin(userId, key("spin-123"))], {
        concurrency: "unbounded"
      })
      assert.isTrue(both.every((outcome) => outcome.spinId === first.spinId))
      assert.strictEqual((yield* (yield* Ledger).balances(userId)).coins, BigInt(segment.value))
      // The key belongs to one user: another user's identical key is a request of its own.
      const other = yield* service.spin(user("someone-else"), key("spin-123"))
      assert.notStrictEqual(other.spinId, first.spinId)
    }).pipe(Effect.provide(Memory))
  )

  it.effect("records nothing when the prize cannot be posted (one write with the spin)", () =>
    Effect.gen(function* () {
      yield* atNoon
      const { userId } = yield* playerLandingOn("2026-05-01", (s) => s.type === "coin")
      const exit = yield* Effect.exit((yield* SpinAndWinService).spin(userId))
      assert.isTrue(Exit.hasDies(exit))
      const recorded = yield* (yield* SpinRepository).listRound("2026-05-01" as RoundId, { limit: 10, offset: 0 })
      assert.strictEqual(recorded.length, 0)
    }).pipe(
      Effect.provide(
        // The ledger's recorder posts the prize with the spin (LedgerRecorder.record): give it a
        // ledger that fails. Fresh, or the ports' own instance, on the real ledger, would be shared.
        withRecorder(
          Layer.fresh(layerMemoryRecorder).pipe(
            Layer.provide(
              Layer.effect(
                Ledger,
                Effect.gen(function* () {
                  const real = yield* Ledger
                  return Ledger.of({ ...real, post: () => Effect.die(new Error("ledger unavailable")) })
                })
              )
            )
          )
        )
      )
    )
  )
})

describe("SpinAndWinService.spin when its nonce is taken", () => {
  it.effect("is drawn once and refused with SpinContended (a 409), recording nothing and reading its seed once", () => {
    let attempts = 0
    let seedReads = 0
    // A store that finds the nonce taken, as the player's own racing seed change would.
    const alwaysStale = Layer.effect(
      SpinRepository,
      Effect.gen(function* () {
        const real = yield* SpinRepository
        return SpinRepository.of({
          ...real,
          spun: () =>
            memoryCause(() =>
              Effect.sync(() => {
                attempts++
                return { written: false, answer: () => Effect.succeed({ _tag: "Stale" as const }) }
              })
            )
        })
      })
    ).pipe(Layer.provide(Layer.fresh(layerMemorySpinRepository)))
    const countingSeeds = Layer.effect(
      SpinAndWinService,
      Effect.gen(function* () {
        const seeds = yield* ClientSeeds
        return yield* Layer.build(SpinAndWinService.layer).pipe(
          Effect.map((context) => Context.get(context, SpinAndWinService)),
          Effect.provideService(
            ClientSeeds,
            ClientSeeds.of({
              ...seeds,
              current: (userId) =>
                Effect.andThen(
                  Effect.sync(() => seedReads++),
                  seeds.current(userId)
                )
            })
          )
        )
      })
    )
    return Effect.gen(function* () {
      yield* atNoon
      const error = yield* Effect.flip((yield* SpinAndWinService).spin(user("racer")))
      assert.strictEqual(error._tag, "SpinContended")
      assert.deepStrictEqual([attempts, seedReads], [1, 1], "never drawn again with a seed read later")
      const recorded = yield* (yield* SpinRepository).listRound("2026-05-01" as RoundId, { limit: 10, offset: 0 })
      assert.strictEqual(recorded.length, 0)
    }).pipe(
      Effect.provide(
        countingSeeds.pipe(
          Layer.provide(alwaysStale),
          Layer.provideMerge(layerMemoryPorts({ random: { roundSeed: ROUND_SEED } }))
        )
      )
    )
  })
})

/**
 * The in-memory ledger recorder (which writes every spin) with its `record` wrapped: `before` runs
 * ahead of each write, `after` between a write and a second run of it (when given).
 */
const withRecord = (before: Effect.Effect<void>, after?: Effect.Effect<void>) =>
  Layer.effect(
    LedgerRecorder,
    Effect.map(LedgerRecorder, (real) =>
      LedgerRecorder.of({
        ...real,
        record: <A, E>(cause: Cause<A, E>, posting?: CausedPosting) => {
          const once = Effect.andThen(before, real.record(cause, posting))
          return after === undefined
            ? once
            : once.pipe(Effect.andThen(after), Effect.andThen(real.record(cause, posting)))
        }
      })
    )
  ).pipe(Layer.provide(Layer.fresh(layerMemoryRecorder)))

describe("SpinAndWinService at a round's end", () => {
  const LAGOS_MIDNIGHT = DateTime.toEpochMillis(DateTime.makeUnsafe("2026-05-01T23:00:00Z"))

  it.effect(
    "a spin whose write reaches the store after midnight is RoundClosed: nothing recorded, no nonce taken",
    () => {
      // The store's clock moves past the round's end between the spin's reading of the time and its
      // write, as a spin started just before midnight would see it.
      const lateWrite = withRecord(TestClock.setTime(LAGOS_MIDNIGHT))
      return Effect.gen(function* () {
        yield* TestClock.setTime(LAGOS_MIDNIGHT - 1)
        const service = yield* SpinAndWinService
        const error = yield* Effect.flip(service.spin(user("late")))
        assert.deepStrictEqual([error._tag, error.message], ["RoundClosed", "round closed, spin again"])
        assert.strictEqual(error.round, "2026-05-01")
        const spins = yield* SpinRepository
        assert.deepStrictEqual(yield* spins.listRound("2026-05-01" as RoundId, { limit: 10, offset: 0 }), [])
        assert.strictEqual((yield* service.clientSeed(user("late"))).nonce, 0)
        assert.strictEqual((yield* (yield* Ledger).balances(user("late"))).coins, 0n)
      }).pipe(Effect.provide(withRecorder(lateWrite)))
    }
  )

  it.effect(
    "a spin whose first write committed, then ran again after midnight (its connection lost), is answered as made, once",
    () => {
      // What UnitOfWork.idempotent does on PostgreSQL when the reply of a committed write is lost:
      // the write runs again, here once the round has ended, and that second run finds it closed.
      const committedThenRetried = withRecord(Effect.void, TestClock.setTime(LAGOS_MIDNIGHT))
      return Effect.gen(function* () {
        yield* TestClock.setTime(LAGOS_MIDNIGHT - 1)
        const service = yield* SpinAndWinService
        const outcome = yield* service.spin(user("unlucky-connection"))
        const spins = yield* SpinRepository
        const recorded = yield* spins.listRound("2026-05-01" as RoundId, { limit: 10, offset: 0 })
        assert.deepStrictEqual(
          recorded.map((spin) => spin.spinId),
          [outcome.spinId]
        )
        assert.isFalse(outcome.replayed)
      }).pipe(Effect.provide(withRecorder(committedThenRetried)))
    }
  )

  it.effect("the last millisecond of a round still records its spin", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(LAGOS_MIDNIGHT - 1)
      const outcome = yield* (yield* SpinAndWinService).spin(user("just-in-time"))
      assert.strictEqual(outcome.round, "2026-05-01")
    }).pipe(Effect.provide(Memory))
  )

  it.effect("reveals a round's seed only a minute after it ends", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(LAGOS_MIDNIGHT - 1)
      const service = yield* SpinAndWinService
      yield* service.spin(user("watcher"))
      for (const at of [LAGOS_MIDNIGHT, LAGOS_MIDNIGHT + REVEAL_GRACE_MILLIS - 1]) {
        yield* TestClock.setTime(at)
        const early = yield* Effect.flip(service.round("2026-05-01" as RoundId, ADMIN))
        assert.strictEqual(early._tag, "RoundNotFinished", `at ${at - LAGOS_MIDNIGHT} ms after midnight`)
      }
      yield* TestClock.setTime(LAGOS_MIDNIGHT + REVEAL_GRACE_MILLIS)
      const audit = yield* service.round("2026-05-01" as RoundId, ADMIN)
      assert.strictEqual(audit.seed, Hex.encode(ROUND_SEED))
      assert.strictEqual(REVEAL_GRACE_MILLIS, 60_000)
    }).pipe(Effect.provide(Memory))
  )
})

describe("SpinAndWinService.round", () => {
  it.effect("keeps the current and future rounds' seeds secret", () =>
    Effect.gen(function* () {
      const service = yield* serviceAtNoon
      yield* service.spin(user("dave"))
      for (const round of ["2026-05-01", "2026-05-02"]) {
        const error = yield* Effect.flip(service.round(round as RoundId, ADMIN))
        assert.strictEqual(error._tag, "RoundNotFinished")
      }
      const unseeded = yield* Effect.flip(service.round("2026-04-30" as RoundId, ADMIN))
      assert.strictEqual(unseeded._tag, "RoundNotFound")
    }).pipe(Effect.provide(Memory))
  )

  it.effect("reveals a finished round's seed, which reproduces every recorded spin", () =>
    Effect.gen(function* () {
      const service = yield* serviceAtNoon
      const view = yield* service.view(user("erin"))
      const spins = yield* Effect.forEach(["erin", "frank", "grace"], (name) => service.spin(user(name)))
      // Midnight, and the minute of grace before a round is revealed.
      yield* TestClock.adjust("721 minutes")
      const audit = yield* service.round("2026-05-01" as RoundId, ADMIN)
      assert.strictEqual(audit.seed, Hex.encode(ROUND_SEED))
      assert.strictEqual(audit.commitment, view.commitment)
      assert.strictEqual(DateTime.formatIso(audit.endedAt), "2026-05-01T23:00:00.000Z")
      assert.deepStrictEqual(
        audit.spins.map((spin) => spin.spinId),
        spins.map((spin) => spin.spinId)
      )
      assert.strictEqual(audit.wheels[0]?.totalWeight, 100)
      const crypto = yield* SeedCrypto
      const segments = defaultWheel("NGN").segments
      for (const spin of audit.spins) {
        const checked = yield* verify(crypto, {
          seed: ROUND_SEED,
          commitment: audit.commitment,
          input: { clientSeed: spin.clientSeed!, userId: spin.userId, nonce: spin.nonce },
          segments
        })
        assert.isTrue(checked.commitmentMatches)
        assert.strictEqual(checked.drawValue, spin.drawValue)
        assert.strictEqual(checked.segment.id, spin.segmentId)
      }
      const mine = yield* service.round("2026-05-01" as RoundId, { userId: user("frank"), isAdmin: false })
      assert.deepStrictEqual(
        mine.spins.map((spin) => spin.spinId),
        [spins[1]?.spinId]
      )
      assert.strictEqual(mine.seed, audit.seed)
      assert.deepStrictEqual(mine.wheels, audit.wheels)
      assert.notInclude(JSON.stringify(mine), "erin")
      assert.notInclude(JSON.stringify(mine), "grace")
      const bystander = yield* service.round("2026-05-01" as RoundId, { userId: user("heidi"), isAdmin: false })
      assert.deepStrictEqual([bystander.spins, bystander.wheels, bystander.seed], [[], [], audit.seed])
      assert.strictEqual(roundOf(yield* DateTime.now, DateTime.zoneMakeNamedUnsafe("Africa/Lagos")), "2026-05-02")
    }).pipe(Effect.provide(Memory))
  )
})

describe("SpinAndWinService client seeds", () => {
  const seed = (value: string) => value as ClientSeed

  it.effect("without a seed set, the default is derived from the user id and the nonce counts recorded spins", () =>
    Effect.gen(function* () {
      const service = yield* serviceAtNoon
      const crypto = yield* SeedCrypto
      const expected = yield* defaultClientSeed(crypto, user("ivan"))
      assert.match(expected, /^[0-9a-f]{32}$/)
      assert.strictEqual(expected, Hex.encode(yield* crypto.sha256(new TextEncoder().encode("ivan"))).slice(0, 32))
      assert.deepStrictEqual(yield* service.clientSeed(user("ivan")), { clientSeed: expected, nonce: 0 })
      const first = yield* service.spin(user("ivan"))
      assert.deepStrictEqual([first.clientSeed, first.nonce], [expected, 0])
      // A refused second spin rolls its claim back: the nonce counts recorded spins only.
      assert.strictEqual((yield* Effect.flip(service.spin(user("ivan"))))._tag, "AlreadySpun")
      assert.deepStrictEqual(yield* service.clientSeed(user("ivan")), { clientSeed: expected, nonce: 1 })
      yield* TestClock.adjust("1 day")
      const second = yield* service.spin(user("ivan"))
      assert.deepStrictEqual([second.clientSeed, second.nonce], [expected, 1])
      const value = yield* drawValue(crypto, ROUND_SEED, { clientSeed: expected, userId: "ivan", nonce: 1 }, 100)
      assert.strictEqual(second.drawValue, value)
    }).pipe(Effect.provide(Memory))
  )

  it.effect("a new seed applies from the next spin with nonce 0; the same seed again changes nothing", () =>
    Effect.gen(function* () {
      const service = yield* serviceAtNoon
      const crypto = yield* SeedCrypto
      const before = yield* service.spin(user("judy"))
      assert.deepStrictEqual(yield* service.setClientSeed(user("judy"), seed("my lucky seed")), {
        clientSeed: seed("my lucky seed"),
        nonce: 0
      })
      yield* TestClock.adjust("1 day")
      const after = yield* service.spin(user("judy"))
      assert.deepStrictEqual([after.clientSeed, after.nonce], ["my lucky seed", 0])
      const expected = yield* drawValue(
        crypto,
        ROUND_SEED,
        { clientSeed: "my lucky seed", userId: "judy", nonce: 0 },
        100
      )
      assert.strictEqual(after.drawValue, expected)
      // Setting the seed already set keeps the nonce (the next spin is the seed's second).
      assert.deepStrictEqual(yield* service.setClientSeed(user("judy"), seed("my lucky seed")), {
        clientSeed: seed("my lucky seed"),
        nonce: 1
      })
      assert.deepStrictEqual(yield* service.setClientSeed(user("judy"), seed("another")), {
        clientSeed: seed("another"),
        nonce: 0
      })
      // The earlier spins keep the seed and nonce they were drawn with.
      yield* TestClock.adjust("1 day")
      const first = yield* service.round("2026-05-01" as RoundId, { userId: user("judy"), isAdmin: false })
      assert.deepStrictEqual(
        first.spins.map((spin) => [spin.spinId, spin.clientSeed, spin.nonce]),
        [[before.spinId, before.clientSeed, 0]]
      )
      const second = yield* service.round("2026-05-02" as RoundId, { userId: user("judy"), isAdmin: false })
      assert.deepStrictEqual(
        second.spins.map((spin): ReadonlyArray<unknown> => [spin.clientSeed, spin.nonce, spin.drawValue]),
        [["my lucky seed", 0, expected]]
      )
    }).pipe(Effect.provide(Memory))
  )

  it.effect("a replayed Idempotency-Key answers the seed and nonce the spin was drawn with", () =>
    Effect.gen(function* () {
      const service = yield* serviceAtNoon
      yield* service.setClientSeed(user("kim"), seed("kim's seed"))
      const first = yield* service.spin(user("kim"), key("k-1"))
      yield* service.setClientSeed(user("kim"), seed("changed later"))
      const again = yield* service.spin(user("kim"), key("k-1"))
      assert.isTrue(again.replayed)
      assert.deepStrictEqual([again.clientSeed, again.nonce], [first.clientSeed, first.nonce])
      assert.deepStrictEqual([first.clientSeed, first.nonce], ["kim's seed", 0])
    }).pipe(Effect.provide(Memory))
  )

  it.effect("a returning player's spin derives no default seed; a first spin derives it once", () => {
    // SHA-256 calls counted beside the in-memory ports' own crypto.
    let hashes = 0
    const Counting = Layer.effect(
      SeedCrypto,
      Effect.gen(function* () {
        const crypto = yield* SeedCrypto
        return SeedCrypto.of({
          sha256: (data) =>
            Effect.suspend(() => {
              hashes++
              return crypto.sha256(data)
            }),
          hmacSha256: crypto.hmacSha256
        })
      })
    )
    const Counted = SpinAndWinService.layer.pipe(
      Layer.provide(layerWheelCaches),
      Layer.provide(Counting),
      Layer.provideMerge(layerMemoryPorts({ random: { roundSeed: ROUND_SEED } }))
    )
    return Effect.gen(function* () {
      const service = yield* serviceAtNoon
      // The round's seed and its commitment (a SHA-256 of their own) exist before the counting.
      yield* service.view(user("lee"))
      hashes = 0
      const first = yield* service.spin(user("lee"))
      assert.strictEqual(hashes, 1)
      yield* TestClock.adjust("1 day")
      yield* service.view(user("lee"))
      hashes = 0
      const second = yield* service.spin(user("lee"))
      assert.strictEqual(hashes, 0)
      assert.deepStrictEqual([second.clientSeed, second.nonce], [first.clientSeed, 1])
    }).pipe(Effect.provide(Counted))
  })
})
