import { Context, type Effect, type Option, Schema, type Stream } from "effect"
import { opaqueCursor } from "../paging/OpaqueCursor.ts"
import type { SealableTransaction } from "./SealChain.ts"

/** A seal of the ledger's hash chain (CONTRACT §8): `transactions` is how many it covers. */
export const Seal = Schema.Struct({
  sequence: Schema.Number.annotate({ description: "1 for the first seal, then one more for each" }),
  hash: Schema.String.annotate({
    description: "SHA-256(previousHash ‖ encode(t₁) ‖ … ‖ encode(tₙ)), lowercase hex (docs/ledger-seals.md)"
  }),
  previousHash: Schema.String.annotate({ description: "The hash of the seal before; 64 zeros for the first" }),
  transactions: Schema.Number.annotate({ description: "How many ledger transactions this seal covers" }),
  sealedAt: Schema.String.annotate({ description: "When it was sealed, ISO 8601 UTC" })
})
export type Seal = typeof Seal.Type

const POSITION = /^[1-9]\d{0,14}$/

/** The `cursor` of the seal listing: base64url of the sequence of the last seal shown (an `opaqueCursor`). */
export const SealCursor = opaqueCursor(Schema.Struct({ sequence: Schema.Number }), {
  parse: (text) => (POSITION.test(text) ? { sequence: Number(text) } : undefined),
  format: (position) => String(position.sequence)
})

export const SealPage = Schema.Struct({
  items: Schema.Array(Seal),
  nextCursor: Schema.NullOr(SealCursor).annotate({
    description: "Pass as `cursor` for the next page; null on the last page"
  })
})
export type SealPage = typeof SealPage.Type

/** A seal's stored row, as verify reads it. */
export interface StoredSeal {
  readonly hash: string
  readonly previousHash: string
  readonly transactions: number
}

/** One transaction a seal names, as the ledger holds it now (absent: deleted). */
export interface SealMember {
  readonly transactionId: bigint
  readonly transaction: SealableTransaction | undefined
}

/**
 * One sequence of the sealed history as stored: the seal's row (absent if deleted while transactions
 * still name it) and the transactions that name it, ascending by id.
 */
export interface SealSegment {
  readonly sequence: number
  readonly stored: StoredSeal | undefined
  readonly members: ReadonlyArray<SealMember>
}

export interface SealRange {
  readonly from?: number | undefined
  readonly to?: number | undefined
}

/**
 * The seals of the ledger. `sealNext` is the one write: with the sealers' lock (one sealer at a time
 * across every instance; another one busy answers none at once, never waits), it takes the oldest
 * committed transactions no seal covers yet (at most `limit`, ascending id), seals them on the head
 * of the chain as SealChain.ts defines a seal (its hash, and each transaction's digest), and stores
 * the seal and which transactions it covers. None: nothing to seal, or another sealer holds the lock.
 * Sealing never locks a ledger row or table.
 *
 * The adapter computes the seal where the rows are (PostgreSQL: LedgerSealsPostgres.ts), so that a
 * seal's rows never pass through the server's event loop (issue 35). SealChain.ts stays the
 * definition: `verify` recomputes every seal with it, and the adapter's tests hold the adapter to
 * it byte for byte.
 */
export class LedgerSeals extends Context.Service<
  LedgerSeals,
  {
    sealNext(limit: number): Effect.Effect<Option.Option<{ readonly seal: Seal; readonly full: boolean }>>
    /** Newest first, strictly below `before` when given. */
    list(query: { readonly before?: number | undefined; readonly limit: number }): Effect.Effect<ReadonlyArray<Seal>>
    readonly latest: Effect.Effect<Option.Option<Seal>>
    /** The sealed history in sequence order, read in batches (flat memory whatever its size). */
    history(range: SealRange): Stream.Stream<SealSegment>
    /** The SHA-256 of each transaction's encoding as it was sealed in seal `sequence`, by transaction id. */
    digests(sequence: number): Effect.Effect<ReadonlyMap<bigint, string>>
  }
>()("@payments-gaming/domain/ledger/LedgerSeals") {}
