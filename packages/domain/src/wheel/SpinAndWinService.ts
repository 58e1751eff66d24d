import { BigDecimal, Context, DateTime, Effect, Layer, Option, Redacted, Result } from "effect"
import { Hex } from "effect/encoding"
import type { UserId } from "../auth/Model.ts"
import { type CausedPosting, Ledger, LedgerRecorder, Movements, UnitOfWork } from "../ledger/index.ts"
import { NotificationOutbox, type OutboxEvent, spinPrizeNotification } from "../notifications/index.ts"
import { type ClientSeed, defaultClientSeed } from "./ClientSeed.ts"
import { ClientSeeds } from "./ClientSeeds.ts"
import { defaultWheel, isDefaultWheel } from "./DefaultWheel.ts"
import { segmentAt, segmentRanges } from "./Draw.ts"
import { AlreadySpun, RoundClosed, RoundNotFinished, RoundNotFound, SpinContended } from "./Errors.ts"
import { type Segment, type SegmentId, toPublicSegment, type Wheel } from "./Model.ts"
import { commitmentOf, drawValue, SEED_BYTES } from "./ProvablyFair.ts"
import {
  isBefore,
  makeRoundClock,
  REVEAL_GRACE_MILLIS,
  type RoundId,
  type RoundWindow,
  roundEnd,
  roundStart
} from "./Round.ts"
import { RoundSeeds } from "./RoundSeeds.ts"
import { type RoundViewer, spinOwnerFor, visibleSpins } from "./RoundViewer.ts"
import { SeedCrypto } from "./SeedCrypto.ts"
import { type IdempotencyKey, type RoundSeed, Spin, type SpinId, type SpinPage } from "./Spin.ts"
import { SpinRepository } from "./SpinRepository.ts"
import { type ClientSeedState, RoundAudit, type SpinOutcome, type WheelView } from "./Views.ts"
import { WheelRandom } from "./WheelRandom.ts"
import { WheelRepository } from "./WheelRepository.ts"
import { WheelSettings } from "./WheelSettings.ts"

/** Spins of a round listed per call unless the caller asks otherwise (CONTRACT §2 paging). */
export const DEFAULT_SPIN_PAGE: SpinPage = { limit: 50, offset: 0 }

export interface RoundAuditOptions {
  readonly page?: SpinPage | undefined
}

/**
 * What one spin read before it draws, handed to the steps that draw, record and answer it. Those
 * steps are functions made once, not generators written inside `spinOnce`: V8 gives every
 * generator function object it runs a map of its own, in the old generation, which points back at
 * the function and so at everything it closed over, until the next full collection. A generator
 * made per request thereby kept the whole request alive past every young collection (issue 35,
 * docs/benchmarks.md "Seventeenth session").
 */
interface Attempt {
  readonly userId: UserId
  readonly idempotencyKey: IdempotencyKey | undefined
  readonly at: DateTime.Utc
  readonly round: RoundId
  readonly expiresIn: string
  readonly window: RoundWindow
  readonly wheel: Wheel
  readonly seed: RoundSeed
  readonly spinId: SpinId
  readonly next: ClientSeedState
}

/** The spin-and-win use cases behind `GET /v1/spin-and-win` and `POST /v1/spin-and-win/spin`. */
export class SpinAndWinService extends Context.Service<
  SpinAndWinService,
  {
    /**
     * The active wheel's public segments, the user's coin balance, the time left in the current
     * round, and the round's seed commitment (the seed is created on first sight of the round).
     */
    view(userId: UserId): Effect.Effect<WheelView>
    /**
     * Spins once for the current round. The draw is made from the round's seed and the player's next
     * client seed and nonce, read once, then the spin is recorded with them (at most one per user
     * and round, enforced by the store), taking the nonce, and its prize credited through the ledger
     * under the spin id, in one write (`LedgerRecorder.record` of `SpinRepository.spun`), only while the round is still open
     * by the store's clock. A prize of 0 posts nothing. Fails `AlreadySpun` for a second spin in the
     * round (also when the player's own concurrent spin took the nonce first), `SpinContended` when
     * the player's own concurrent seed change took it, `RoundClosed` when the round ended before
     * the write: nothing is recorded by any of them, and the client seed is never read again, so no
     * seed chosen later can be drawn into the round. With
     * an `idempotencyKey` already used by this user, returns that spin again (`replayed: true`)
     * whatever the round, and credits nothing.
     */
    spin(
      userId: UserId,
      idempotencyKey?: IdempotencyKey | undefined
    ): Effect.Effect<SpinOutcome, AlreadySpun | SpinContended | RoundClosed>
    /**
     * The client seed the player's next spin will be drawn with and that spin's nonce: the seed they
     * set, or the default derived from their user id (`defaultClientSeed`) with nonce 0.
     */
    clientSeed(userId: UserId): Effect.Effect<ClientSeedState>
    /**
     * Sets the client seed of the player's next spin, which is the next one they make, in this
     * round if they have not spun yet. A new seed restarts the nonce at 0; setting the seed already
     * set changes nothing. A spin already made keeps the seed and nonce it was drawn with.
     */
    setClientSeed(userId: UserId, clientSeed: ClientSeed): Effect.Effect<ClientSeedState>
    /**
     * A finished round's revealed seed and commitment (from `REVEAL_GRACE_MILLIS` after it ended), with the spins `viewer` may see (their own,
     * or everyone's for an admin: see `RoundViewer.ts`) and the draw ranges of the wheels those
     * spins used. `RoundNotFinished` for the current or a future round, or one that ended less than the grace ago, `RoundNotFound` for a past
     * round that never had a seed.
     */
    round(
      round: RoundId,
      viewer: RoundViewer,
      options?: RoundAuditOptions
    ): Effect.Effect<RoundAudit, RoundNotFinished | RoundNotFound>
  }
>()("@payments-gaming/domain/wheel/SpinAndWinService") {
  /**
   * Needs `WheelRepository`, `SpinRepository`, `RoundSeeds`, `ClientSeeds`, `WheelRandom`,
   * `SeedCrypto`, `WheelSettings`, `Ledger`, `LedgerRecorder` and `UnitOfWork`; time comes from `Clock`. It reads the active wheel
   * and the round's seed on every request: put `layerWheelCaches` (WheelCaches.ts) in front of the
   * stores so that most requests read neither.
   */
  static readonly layer = Layer.effect(
    SpinAndWinService,
    Effect.gen(function* () {
      const wheels = yield* WheelRepository
      const spins = yield* SpinRepository
      const seeds = yield* RoundSeeds
      const clientSeeds = yield* ClientSeeds
      const random = yield* WheelRandom
      const crypto = yield* SeedCrypto
      const settings = yield* WheelSettings
      const ledger = yield* Ledger
      const recorder = yield* LedgerRecorder
      const unitOfWork = yield* UnitOfWork
      // Optional, so wheels built without an outbox (other services, tests) still build; they
      // announce no prizes. The outbox only makes the notice: the ledger writes its row with the
      // prize's posting, in the spin's statement.
      const outbox = Option.getOrUndefined(yield* Effect.serviceOption(NotificationOutbox))

      // The migration seeds the default wheel in NGN. While nobody has edited it, it follows
      // DEFAULT_CURRENCY: an untouched default in another currency is re-issued (labels and cash
      // prizes) in the configured one. An edited wheel keeps its own currency.
      const activeWheel = Effect.flatMap(wheels.active, (wheel) =>
        wheel.currency === settings.currency || !isDefaultWheel(wheel)
          ? Effect.succeed(wheel)
          : Effect.logInfo("Re-issuing the default wheel in the configured currency").pipe(
              Effect.annotateLogs({ from: wheel.currency, to: settings.currency }),
              Effect.andThen(wheels.replaceActive(wheel.version, defaultWheel(settings.currency)))
            )
      )

      const freshSeed = Effect.fnUntraced(function* (round: RoundId) {
        const seed = yield* random.bytes(SEED_BYTES)
        return {
          round,
          seed: Redacted.make(seed),
          commitment: yield* commitmentOf(crypto, seed),
          createdAt: yield* DateTime.now
        } satisfies RoundSeed
      })

      const seedOf = (round: RoundId) => seeds.getOrCreate(round, freshSeed(round))

      const asCoinBalance = (userId: UserId, coins: bigint) =>
        coins <= BigInt(Number.MAX_SAFE_INTEGER)
          ? Effect.succeed(Number(coins))
          : Effect.die(new RangeError(`coin balance ${coins} of ${userId} exceeds a JSON integer`))

      const coinBalance = (userId: UserId) =>
        Effect.flatMap(ledger.balances(userId), ({ coins }) => asCoinBalance(userId, coins))

      const now = DateTime.now
      const roundAt = makeRoundClock(settings.timeZone)

      // The per-request entry points are untraced (see BankingService.receive for the cost).
      const view = Effect.fnUntraced(function* (userId: UserId) {
        const at = yield* now
        const { round, expiresIn } = roundAt(at)
        const wheel = yield* activeWheel
        const seed = yield* seedOf(round)
        // Built from trusted values; the HTTP response's encoding checks it (Views.ts).
        const view: WheelView = {
          coinBalance: yield* coinBalance(userId),
          expiresIn,
          segments: wheel.publicSegments,
          round,
          commitment: seed.commitment
        }
        return view
      })

      const segmentOf = (wheel: Wheel, segmentId: SegmentId): Effect.Effect<Segment> => {
        const found = wheel.segments.find((segment) => segment.id === segmentId)
        return found === undefined
          ? Effect.die(new Error(`segment ${segmentId} is not on wheel version ${wheel.version}`))
          : Effect.succeed(found)
      }

      /** The stored result of an idempotency key, reported with today's balance and countdown. */
      const replay = Effect.fnUntraced(function* (stored: Spin) {
        const wheel = yield* wheels.byVersion(stored.wheelVersion)
        if (Option.isNone(wheel)) return yield* Effect.die(new Error(`wheel version ${stored.wheelVersion} is gone`))
        // A recorded spin's round always has its seed; creating one now would commit to nothing.
        const seed = yield* seeds.getOrCreate(
          stored.round,
          Effect.die(new Error(`round ${stored.round} of spin ${stored.spinId} has no seed`))
        )
        const outcome: SpinOutcome = {
          segment: toPublicSegment(yield* segmentOf(wheel.value, stored.segmentId)),
          coinBalance: yield* coinBalance(stored.userId),
          expiresIn: roundAt(yield* now).expiresIn,
          spinId: stored.spinId,
          round: stored.round,
          clientSeed: stored.clientSeed,
          nonce: stored.nonce,
          drawValue: stored.drawValue,
          wheelVersion: stored.wheelVersion,
          commitment: seed.commitment,
          replayed: true
        }
        return outcome
      })

      const noticeOf = (event: OutboxEvent | undefined) =>
        event === undefined || outbox === undefined ? undefined : outbox.notice(event)

      /** The spin's prize as a posting with its notification, recorded with the spin; none for a prize of 0. */
      const prizeOf = (spin: Spin, wheel: Wheel): Effect.Effect<CausedPosting | undefined> => {
        if (spin.prize.value === 0) return Effect.undefined
        const built =
          spin.prize.type === "coin"
            ? Movements.coinPrize({ key: spin.spinId, userId: spin.userId, coins: BigInt(spin.prize.value) })
            : Movements.cashPrize({
                key: spin.spinId,
                userId: spin.userId,
                currency: wheel.currency,
                amount: BigDecimal.fromBigInt(BigInt(spin.prize.value))
              })
        // A prize moves from a system pool, which may go negative, so neither failure can happen
        // for a well-formed wheel: either one is a bug, not an outcome.
        return Result.match(built, {
          onFailure: Effect.die,
          onSuccess: (transaction) =>
            Effect.succeed({ transaction, notice: noticeOf(spinPrizeNotification(spin, wheel.currency)) })
        })
      }

      /**
       * The player's next client seed and nonce: the stored ones, or the default seed at nonce 0.
       * The default is derived only when nothing is stored, so a returning player's spin (they have
       * a row from their first spin on) skips its SHA-256: a hash or HMAC inside a request costs
       * 15-20 µs, timed in place (issue 16, docs/benchmarks.md).
       */
      const nextClientSeed = Effect.fnUntraced(function* (userId: UserId) {
        const stored = yield* clientSeeds.current(userId)
        if (Option.isSome(stored)) return stored.value
        const state: ClientSeedState = { clientSeed: yield* defaultClientSeed(crypto, userId), nonce: 0 }
        return state
      })

      /** A spin drawn with the client seed and nonce `next`, read once for the spin by `spinOnce`. */
      const draw = Effect.fnUntraced(function* (
        userId: UserId,
        wheel: Wheel,
        seed: RoundSeed,
        { clientSeed, nonce }: ClientSeedState,
        fields: { readonly spinId: SpinId; readonly round: RoundId; readonly at: DateTime.Utc },
        idempotencyKey: IdempotencyKey | undefined
      ) {
        const value = yield* drawValue(
          crypto,
          Redacted.value(seed.seed),
          { clientSeed, userId, nonce },
          wheel.totalWeight
        )
        const segment = segmentAt(wheel.segments, value)
        // Every field comes from a decoded or generated value, so its filters (UUID, id and key
        // patterns, bounds) are not run a second time here (issue 16); types are still parsed.
        const spin = new Spin(
          {
            spinId: fields.spinId,
            userId,
            round: fields.round,
            wheelVersion: wheel.version,
            clientSeed,
            nonce,
            drawValue: value,
            segmentId: segment.id,
            prize: segment.prize,
            createdAt: fields.at,
            idempotencyKey: idempotencyKey ?? null
          },
          { disableChecks: true }
        )
        return { spin, segment }
      })

      // Drawn once, with the seed and nonce read once, and recorded only if they are still the
      // player's next ones and the round is still open by the store's clock (the store checks both
      // in its one write, which needs no transaction). It is never drawn again with a seed read
      // later: a redraw that re-read the seed let a seed chosen after the round's reveal into the
      // round (issue 34). A stale spin is refused instead; only the player's own concurrent spin
      // or seed change makes one.
      const drawAndRecord = Effect.fnUntraced(function* (attempt: Attempt) {
        const { userId, round } = attempt
        const drawn = yield* draw(userId, attempt.wheel, attempt.seed, attempt.next, attempt, attempt.idempotencyKey)
        // One write: the nonce, the spin, its prize's posting and the prize's notification (issue 16).
        const recorded = yield* recorder.record(
          spins.spun(drawn.spin, attempt.window),
          yield* prizeOf(drawn.spin, attempt.wheel)
        )
        if (recorded._tag === "Recorded") return { ...drawn, coins: recorded.coins }
        if (recorded._tag === "Closed") return yield* new RoundClosed({ round })
        // Stale: a concurrent spin of theirs in this round is AlreadySpun; a seed change, a 409 to retry.
        const [mine] = yield* spins.listRound(round, { limit: 1, offset: 0 }, userId)
        return yield* mine === undefined ? new SpinContended({ round }) : new AlreadySpun({ round })
      })

      /** The answer to the spin just recorded, with the coin balance its write read. */
      const answer = Effect.fnUntraced(function* (
        attempt: Attempt,
        { spin, segment, coins }: { spin: Spin; segment: Segment; coins: bigint }
      ) {
        const { spinId, round } = attempt
        yield* Effect.logInfo("Wheel spun").pipe(Effect.annotateLogs({ spinId, round, segmentId: segment.id }))
        const outcome: SpinOutcome = {
          segment: toPublicSegment(segment),
          coinBalance: yield* asCoinBalance(attempt.userId, coins),
          expiresIn: attempt.expiresIn,
          spinId,
          round,
          clientSeed: spin.clientSeed,
          nonce: spin.nonce,
          drawValue: spin.drawValue,
          wheelVersion: attempt.wheel.version,
          commitment: attempt.seed.commitment,
          replayed: false
        }
        return outcome
      })

      // Run again when its connection is lost, committed or not (`UnitOfWork.idempotent`): the spin
      // id is drawn once, in `spinOnce`, so a first run that did commit is this spin, found in the
      // round when the second run is refused (AlreadySpun; RoundClosed when the round ended in
      // between), and answered as made.
      const madeAlready = <E>(attempt: Attempt, refused: E) =>
        Effect.flatMap(spins.listRound(attempt.round, { limit: 1, offset: 0 }, attempt.userId), ([mine]) =>
          mine !== undefined && mine.spinId === attempt.spinId
            ? Effect.map(replay(mine), (outcome): SpinOutcome => ({ ...outcome, replayed: false }))
            : Effect.fail(refused)
        )

      const spinOnce = Effect.fnUntraced(function* (userId: UserId, idempotencyKey: IdempotencyKey | undefined) {
        const at = yield* now
        const { round, expiresIn, startMillis, endMillis } = roundAt(at)
        const attempt: Attempt = {
          userId,
          idempotencyKey,
          at,
          round,
          expiresIn,
          window: { startMillis, endMillis },
          wheel: yield* activeWheel,
          seed: yield* seedOf(round),
          spinId: (yield* random.uuid) as SpinId,
          next: yield* nextClientSeed(userId)
        }
        return yield* unitOfWork.idempotent(drawAndRecord(attempt)).pipe(
          Effect.flatMap((recorded) => answer(attempt, recorded)),
          Effect.catchTag("AlreadySpun", (refused) => madeAlready(attempt, refused)),
          Effect.catchTag("RoundClosed", (refused) => madeAlready(attempt, refused))
        )
      })

      const spin = Effect.fnUntraced(function* (userId: UserId, idempotencyKey?: IdempotencyKey | undefined) {
        if (idempotencyKey === undefined) return yield* spinOnce(userId, undefined)
        const earlier = yield* spins.findByIdempotencyKey(userId, idempotencyKey)
        if (Option.isSome(earlier)) return yield* replay(earlier.value)
        // Two requests with one key can race past the lookup; the loser's insert fails, and by then
        // the winner has committed, so its spin is found under the key.
        return yield* spinOnce(userId, idempotencyKey).pipe(
          Effect.catchTag("AlreadySpun", (conflict) =>
            Effect.flatMap(spins.findByIdempotencyKey(userId, idempotencyKey), (raced) =>
              Option.isSome(raced) ? replay(raced.value) : Effect.fail(conflict)
            )
          )
        )
      })

      const setClientSeed = (userId: UserId, seed: ClientSeed) => clientSeeds.set(userId, seed)

      const round = Effect.fn("SpinAndWinService.round")(function* (
        roundId: RoundId,
        viewer: RoundViewer,
        options?: RoundAuditOptions
      ) {
        // The round that was running REVEAL_GRACE_MILLIS ago: only rounds before it are revealed, so
        // a spin still in flight at midnight has been recorded or refused before its seed is public.
        const current = roundAt(DateTime.subtract(yield* now, { milliseconds: REVEAL_GRACE_MILLIS })).round
        if (!isBefore(roundId, current)) return yield* new RoundNotFinished({ round: roundId })
        const seed = yield* seeds.revealed(roundId, current)
        if (Option.isNone(seed)) return yield* new RoundNotFound({ round: roundId })
        const page = options?.page ?? DEFAULT_SPIN_PAGE
        const listed = visibleSpins(viewer, yield* spins.listRound(roundId, page, spinOwnerFor(viewer)))
        const versions = [...new Set(listed.map((spin) => spin.wheelVersion))].sort((a, b) => a - b)
        const used = yield* Effect.forEach(versions, (version) => wheels.byVersion(version))
        return new RoundAudit({
          round: roundId,
          seed: Hex.encode(Redacted.value(seed.value.seed)),
          commitment: seed.value.commitment,
          startedAt: roundStart(roundId, settings.timeZone),
          endedAt: roundEnd(roundId, settings.timeZone),
          wheels: used.flatMap((wheel) =>
            Option.isSome(wheel)
              ? [
                  {
                    version: wheel.value.version,
                    currency: wheel.value.currency,
                    totalWeight: wheel.value.totalWeight,
                    ranges: segmentRanges(wheel.value.segments)
                  }
                ]
              : []
          ),
          spins: listed
        })
      })

      return SpinAndWinService.of({ view, spin, clientSeed: nextClientSeed, setClientSeed, round })
    })
  )
}
