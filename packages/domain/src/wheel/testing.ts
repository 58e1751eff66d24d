import { Clock, DateTime, Effect, Layer, Option } from "effect"
import { Digest, Mac, SecureRandom } from "effect/crypto"
import type { UserId } from "../auth/Model.ts"
import { Ledger, type LedgerRecorder, type UnitOfWork } from "../ledger/index.ts"
import { layerMemory as layerMemoryLedger, MemoryDatabase, memoryCause } from "../ledger/testing.ts"
import type { Currency } from "../money/index.ts"
import { utf8Bytes } from "../text/Utf8Bytes.ts"
import { ClientSeeds } from "./ClientSeeds.ts"
import { defaultWheel } from "./DefaultWheel.ts"
import { Wheel, type WheelDefinition } from "./Model.ts"
import type { RoundId, RoundWindow } from "./Round.ts"
import { RoundSeeds } from "./RoundSeeds.ts"
import { SeedCrypto } from "./SeedCrypto.ts"
import { type IdempotencyKey, oneSpinPerRound, type RoundSeed, type Spin, type SpinPage } from "./Spin.ts"
import { SpinAndWinService } from "./SpinAndWinService.ts"
import { type SpinRecord, SpinRepository } from "./SpinRepository.ts"
import type { ClientSeedState } from "./Views.ts"
import { layerWheelCaches } from "./WheelCaches.ts"
import { WheelRandom } from "./WheelRandom.ts"
import { WheelRepository } from "./WheelRepository.ts"
import { WheelSettings } from "./WheelSettings.ts"

/**
 * Bounds that hold any instant of the tests' clocks: for tests that write spins of rounds other than
 * the current one straight into a store (to seed a finished round's audit, say), where the round's
 * own bounds would rightly refuse them.
 */
export const alwaysOpen: RoundWindow = { startMillis: 0, endMillis: Date.UTC(9999, 0, 1) }

interface WheelRow {
  readonly wheel: Wheel
  readonly active: boolean
}

/**
 * An in-memory `WheelRepository` on the shared `MemoryDatabase`, holding `initial` as version 1
 * (the default wheel in NGN, as the migration seeds it, unless told otherwise).
 */
export const layerMemoryWheelRepository = (
  initial: WheelDefinition = defaultWheel("NGN")
): Layer.Layer<WheelRepository, never, MemoryDatabase> =>
  Layer.effect(
    WheelRepository,
    Effect.gen(function* () {
      const db = yield* MemoryDatabase
      const rows = db.table<WheelRow>("wheel.wheels")
      rows.set("1", { wheel: new Wheel({ version: 1, ...initial }), active: true })

      const activeNow = () => {
        for (const row of rows.values()) if (row.active) return row.wheel
        throw new Error("no active wheel")
      }

      return WheelRepository.of({
        active: db.atomically(Effect.sync(activeNow)),
        byVersion: (version) =>
          db.atomically(
            Effect.sync(() => Option.map(Option.fromUndefinedOr(rows.get(String(version))), (r) => r.wheel))
          ),
        replaceActive: (expectedVersion, definition) =>
          db.transaction(
            Effect.sync(() => {
              const current = activeNow()
              if (current.version !== expectedVersion) return current
              const version = Math.max(...[...rows.values()].map((row) => row.wheel.version)) + 1
              const wheel = new Wheel({ version, ...definition })
              rows.set(String(current.version), { wheel: current, active: false })
              rows.set(String(version), { wheel, active: true })
              return wheel
            })
          )
      })
    })
  )

/** The players' client seeds and next nonces, shared by the memory `ClientSeeds` and `SpinRepository`. */
const CLIENT_SEEDS_TABLE = "wheel.client_seeds"

/**
 * An in-memory `SpinRepository` with the SQL one's rules: the nonce check and advance on the
 * client-seed table `layerMemoryClientSeeds` keeps and "one spin per user per round"
 * (`oneSpinPerRound`). Its `spun` is a function the memory ledger's recorder applies inside its
 * memory transaction, before the prize's posting; its answer reads the coins after it.
 */
export const layerMemorySpinRepository: Layer.Layer<SpinRepository, never, MemoryDatabase | Ledger> = Layer.effect(
  SpinRepository,
  Effect.gen(function* () {
    const db = yield* MemoryDatabase
    const ledger = yield* Ledger
    const rows = db.table<Spin>("wheel.spins")
    const seeds = db.table<ClientSeedState>(CLIENT_SEEDS_TABLE)

    // The nonce is taken first and the spin refused after, as in SQL: a stale spin is not checked for
    // uniqueness, and a refused one gives its nonce back with the transaction.
    const takeNonce = (spin: Spin) =>
      Effect.suspend(() => {
        const clientSeed = spin.clientSeed
        if (clientSeed === null) return Effect.die(new Error(`spin ${spin.spinId} has no client seed`))
        const stored = seeds.get(spin.userId) ?? { clientSeed, nonce: 0 }
        if (stored.clientSeed !== clientSeed || stored.nonce !== spin.nonce) return Effect.succeed(false)
        // Rows are replaced, never mutated, so a rollback's snapshot keeps the old one.
        seeds.set(spin.userId, { clientSeed, nonce: spin.nonce + 1 })
        return Effect.succeed(true)
      })

    const insert = (spin: Spin) =>
      db.atomically(
        Effect.suspend(() => {
          const refused = oneSpinPerRound(spin, rows.values())
          if (refused !== undefined) return Effect.fail(refused)
          rows.set(spin.spinId, spin)
          return Effect.void
        })
      )

    const nothing = (answer: SpinRecord) => ({ written: false, answer: () => Effect.succeed(answer) })

    const spun = (spin: Spin, open: RoundWindow) =>
      memoryCause(() =>
        Effect.gen(function* () {
          // The store's clock, as PostgreSQL's now() is the SQL store's: here the Effect Clock (TestClock in tests).
          const millis = yield* Clock.currentTimeMillis
          if (millis < open.startMillis || millis >= open.endMillis) return nothing({ _tag: "Closed" })
          if (!(yield* takeNonce(spin))) return nothing({ _tag: "Stale" })
          yield* insert(spin)
          return {
            written: true,
            answer: () =>
              Effect.map(ledger.balances(spin.userId), ({ coins }): SpinRecord => ({ _tag: "Recorded", coins }))
          }
        })
      )

    const findByIdempotencyKey = (userId: UserId, key: IdempotencyKey) =>
      db.atomically(
        Effect.sync(() =>
          Option.fromUndefinedOr([...rows.values()].find((s) => s.userId === userId && s.idempotencyKey === key))
        )
      )

    const listRound = (round: RoundId, { limit, offset }: SpinPage, userId?: UserId) =>
      db.atomically(
        Effect.sync(() =>
          [...rows.values()]
            .filter((spin) => spin.round === round && (userId === undefined || spin.userId === userId))
            .sort((a, b) => DateTime.toEpochMillis(a.createdAt) - DateTime.toEpochMillis(b.createdAt))
            .slice(offset, offset + limit)
        )
      )

    return SpinRepository.of({ spun, findByIdempotencyKey, listRound })
  })
)

/** In-memory `RoundSeeds`: get-or-create under the database lock, reveal only rounds before `current`. */
export const layerMemoryRoundSeeds: Layer.Layer<RoundSeeds, never, MemoryDatabase> = Layer.effect(
  RoundSeeds,
  Effect.gen(function* () {
    const db = yield* MemoryDatabase
    const rows = db.table<RoundSeed>("wheel.round_seeds")
    return RoundSeeds.of({
      getOrCreate: (round, fresh) =>
        db.atomically(
          Effect.suspend(() => {
            const stored = rows.get(round)
            if (stored !== undefined) return Effect.succeed(stored)
            return Effect.map(fresh, (seed) => {
              rows.set(round, seed)
              return seed
            })
          })
        ),
      revealed: (round, current) =>
        db.atomically(Effect.sync(() => (round < current ? Option.fromUndefinedOr(rows.get(round)) : Option.none())))
    })
  })
)

/**
 * In-memory `ClientSeeds` with the SQL one's rules: a new seed restarts the nonce, the same seed
 * changes nothing. A spin takes its nonce in `layerMemorySpinRepository`, on the same table.
 */
export const layerMemoryClientSeeds: Layer.Layer<ClientSeeds, never, MemoryDatabase> = Layer.effect(
  ClientSeeds,
  Effect.gen(function* () {
    const db = yield* MemoryDatabase
    const rows = db.table<ClientSeedState>(CLIENT_SEEDS_TABLE)
    return ClientSeeds.of({
      current: (userId) => db.atomically(Effect.sync(() => Option.fromUndefinedOr(rows.get(userId)))),
      set: (userId, clientSeed) =>
        db.atomically(
          Effect.sync(() => {
            const stored = rows.get(userId)
            const next = stored?.clientSeed === clientSeed ? stored : { clientSeed, nonce: 0 }
            rows.set(userId, next)
            return next
          })
        )
    })
  })
)

/** SHA-256 and HMAC-SHA256 from `effect/crypto` on the runtime's WebCrypto: real digests, no Node API. */
export const layerWebCryptoSeedCrypto: Layer.Layer<SeedCrypto> = Layer.effect(
  SeedCrypto,
  Effect.gen(function* () {
    const digest = yield* Digest.Digest
    const mac = yield* Mac.Mac
    return SeedCrypto.of({
      sha256: (data) => digest.digest(Digest.sha256, data),
      hmacSha256: (key, message) =>
        Mac.key(Mac.hmacSha256, key).pipe(
          Effect.flatMap((macKey) => mac.sign(macKey, utf8Bytes(message))),
          Effect.orDie
        )
    })
  })
).pipe(Layer.provide([Digest.layerWebCrypto, Mac.layerWebCrypto.pipe(Layer.provide(SecureRandom.layerWebCrypto))]))

/** mulberry32: a tiny, well-mixed 32-bit generator; reproducible, and of course not secure. */
const mulberry32 = (state: number) => {
  let current = state >>> 0
  return () => {
    current = (current + 0x6d2b79f5) >>> 0
    let t = current
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (t ^ (t >>> 14)) >>> 0
  }
}

export interface DeterministicRandomOptions {
  /** Start of the generator's sequence. */
  readonly state?: number
  /** Returned for every seed-sized request (32 bytes), so every round's seed is known to the test. */
  readonly roundSeed?: Uint8Array
}

/**
 * A reproducible `WheelRandom`. With `roundSeed` a test knows each round's seed in advance and can
 * pick a user id whose draw lands on the segment it needs (`forceSegment` in the tests).
 */
export const layerDeterministicRandom = (options: DeterministicRandomOptions = {}): Layer.Layer<WheelRandom> =>
  Layer.sync(WheelRandom, () => {
    const next = mulberry32(options.state ?? 0x5eed)
    const bytes = (size: number) => {
      const out = new Uint8Array(size)
      for (let index = 0; index < size; index += 4) {
        const word = next()
        for (let shift = 0; shift < 4 && index + shift < size; shift++)
          out[index + shift] = (word >>> (24 - 8 * shift)) & 0xff
      }
      return out
    }
    // Uniform integers and UUIDv4 layout from effect's own derivations over these bytes.
    const derived = SecureRandom.make(bytes)
    return WheelRandom.of({
      bytes: (size) =>
        Effect.sync(() =>
          options.roundSeed !== undefined && size === options.roundSeed.length ? options.roundSeed.slice() : bytes(size)
        ),
      int: (bound) => derived.intBetween(0, bound, { halfOpen: true }),
      uuid: derived.uuidV4()
    })
  })

export interface MemoryOptions {
  readonly currency?: Currency
  readonly timeZone?: string
  /** The wheel stored as version 1; the default wheel in NGN (as the migration seeds it) otherwise. */
  readonly wheel?: WheelDefinition
  readonly random?: DeterministicRandomOptions
}

/**
 * Every port of the wheel in memory, on the in-memory ledger and unit of work (one shared
 * `MemoryDatabase`, so a failed spin write rolls back its nonce, spin and posting together).
 */
export const layerMemoryPorts = (
  options: MemoryOptions = {}
): Layer.Layer<
  | WheelRepository
  | SpinRepository
  | RoundSeeds
  | ClientSeeds
  | WheelRandom
  | SeedCrypto
  | WheelSettings
  | Ledger
  | LedgerRecorder
  | UnitOfWork
  | MemoryDatabase
> =>
  Layer.mergeAll(
    layerMemoryWheelRepository(options.wheel),
    layerMemorySpinRepository,
    layerMemoryRoundSeeds,
    layerMemoryClientSeeds,
    layerDeterministicRandom(options.random),
    layerWebCryptoSeedCrypto,
    WheelSettings.layer({
      currency: options.currency ?? "NGN",
      timeZone: DateTime.zoneMakeNamedUnsafe(options.timeZone ?? "Africa/Lagos")
    })
  ).pipe(Layer.provideMerge(layerMemoryLedger))

/**
 * `SpinAndWinService` behind its caches (as the service runs) on in-memory ports, which stay
 * reachable, uncached, for assertions.
 */
export const layerMemory = (options: MemoryOptions = {}) =>
  SpinAndWinService.layer.pipe(Layer.provide(layerWheelCaches), Layer.provideMerge(layerMemoryPorts(options)))
