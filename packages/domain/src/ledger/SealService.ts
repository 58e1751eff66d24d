import { Context, Effect, Layer, Option, type Stream } from "effect"
import { Digest } from "effect/crypto"
import { LedgerSeals, type Seal, type SealPage, type SealRange, type SealSegment } from "./LedgerSeals.ts"
import { type Verification, verify } from "./SealVerification.ts"

/** The largest page of the seal listing; the edges refuse more, this only makes sure. */
export const MAX_SEAL_PAGE = 200

/**
 * How many transactions the background sealer puts in one seal; a larger backlog goes into several,
 * one right after the other, so the `LEDGER_SEAL_INTERVAL` promise holds as before. A seal may hold
 * up to `MAX_SEAL_TRANSACTIONS` (SealChain.ts: what verification is sized for). The sealer takes
 * fewer: each seal is one short transaction, so a round at 2,000 postings a second (10,000
 * transactions in 5 s) is ten short transactions rather than one long one. (Until issue 35's twentieth
 * session the server encoded and hashed the batch itself, and batches of 1,000 kept its objects
 * young: docs/benchmarks.md, "Sixteenth session".) Ten times as many seals stay cheap only because the
 * adapter's "not sealed yet" check is a probe, not a scan of every seal's members (LedgerSealsPostgres.ts).
 */
export const SEAL_BATCH_TRANSACTIONS = 1_000

/** The seals of the ledger: sealing (the background sealer), the listing, verification and export. */
export class SealService extends Context.Service<
  SealService,
  {
    /** Seals every committed transaction not sealed yet, a seal per batch; the seals written (none: idle or busy). */
    readonly sealPending: Effect.Effect<ReadonlyArray<Seal>>
    list(query: {
      readonly after?: { readonly sequence: number } | undefined
      readonly limit: number
    }): Effect.Effect<SealPage>
    readonly latest: Effect.Effect<Option.Option<Seal>>
    verify(options: { readonly head?: string | undefined }): Effect.Effect<Verification>
    history(range: SealRange): Stream.Stream<SealSegment>
  }
>()("@payments-gaming/domain/ledger/SealService") {
  static readonly layer: Layer.Layer<SealService, never, LedgerSeals | Digest.Digest> = Layer.effect(
    this,
    Effect.gen(function* () {
      const seals = yield* LedgerSeals
      const digest = yield* Digest.Digest
      const withDigest = <A, E>(effect: Effect.Effect<A, E, Digest.Digest>) =>
        Effect.provideService(effect, Digest.Digest, digest)

      const sealPending = Effect.gen(function* () {
        const written: Array<Seal> = []
        // A full batch means more may be waiting: seal again at once, so a backlog drains without pauses.
        while (true) {
          const next = yield* seals.sealNext(SEAL_BATCH_TRANSACTIONS)
          if (Option.isNone(next)) return written
          written.push(next.value.seal)
          if (!next.value.full) return written
        }
      }).pipe(Effect.withSpan("SealService.sealPending"))

      const list = Effect.fn("SealService.list")(function* (query: {
        readonly after?: { readonly sequence: number } | undefined
        readonly limit: number
      }) {
        const limit = Math.min(Math.max(Math.trunc(query.limit), 1), MAX_SEAL_PAGE)
        // One more than the page: whether it exists says if there is a next page.
        const rows = yield* seals.list({ before: query.after?.sequence, limit: limit + 1 })
        const page = rows.slice(0, limit)
        const last = page.at(-1)
        return {
          items: page,
          nextCursor: rows.length > limit && last !== undefined ? { sequence: last.sequence } : null
        } satisfies SealPage
      })

      return SealService.of({
        sealPending,
        list,
        latest: seals.latest,
        verify: (options) =>
          withDigest(
            verify(seals.history({}), { head: options.head, digestsOf: (sequence) => seals.digests(sequence) })
          ),
        history: (range) => seals.history(range)
      })
    })
  )
}
