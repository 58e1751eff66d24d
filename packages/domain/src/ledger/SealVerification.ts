import { Effect, Stream } from "effect"
import type { Digest } from "effect/crypto"
import type { SealSegment } from "./LedgerSeals.ts"
import { encodeTransaction, GENESIS_HASH, type SealableTransaction, sealMessageOf, sha256Hex } from "./SealChain.ts"

/** The digests a seal stored for its transactions, read only to explain a seal that differs. */
export type DigestsOf = (sequence: number) => Effect.Effect<ReadonlyMap<bigint, string>>

/** What `ledger verify` found. */
export type Verification =
  | { readonly _tag: "Verified"; readonly transactions: number; readonly seals: number; readonly head: string }
  /** The first seal that differs and, where it can tell, the transaction. */
  | {
      readonly _tag: "Broken"
      readonly sequence: number
      readonly transactionId: bigint | undefined
      readonly message: string
    }
  /** The chain holds, but no seal of it has the hash given as `--head`. */
  | { readonly _tag: "HeadNotFound"; readonly head: string; readonly transactions: number; readonly seals: number }

interface Progress {
  readonly previous: string
  readonly expected: number
  readonly transactions: number
  readonly seals: number
  readonly headSeen: boolean
}

const broken = (sequence: number, message: string, transactionId?: bigint) =>
  ({ _tag: "Broken", sequence, transactionId, message }) as const

/**
 * Names what differs inside a seal whose recomputed hash is not the stored one: the first
 * transaction that is missing or whose encoding no longer has its sealed digest, else a count that
 * changed (a transaction taken out of or put into the seal), else the seal itself (rewritten).
 */
const explain = Effect.fnUntraced(function* (
  segment: SealSegment,
  storedHash: string,
  computed: string,
  digestsOf: DigestsOf
) {
  const sealed = yield* digestsOf(segment.sequence)
  for (const member of segment.members) {
    if (member.transaction === undefined) {
      return broken(segment.sequence, `transaction ${member.transactionId} is missing`, member.transactionId)
    }
    const digest = yield* sha256Hex(encodeTransaction(member.transaction))
    if (digest !== sealed.get(member.transactionId)) {
      return broken(
        segment.sequence,
        `transaction ${member.transactionId} (${member.transaction.key}) is not what was sealed`,
        member.transactionId
      )
    }
  }
  const count = segment.stored?.transactions ?? 0
  if (count !== segment.members.length) {
    return broken(segment.sequence, `it covered ${count} transactions, ${segment.members.length} now name it`)
  }
  return broken(segment.sequence, `its stored hash ${storedHash} is not the hash of its transactions, ${computed}`)
})

type Step = { readonly _tag: "Continue"; readonly progress: Progress } | Exclude<Verification, { _tag: "Verified" }>

const check = Effect.fnUntraced(function* (
  progress: Progress,
  segment: SealSegment,
  head: string | undefined,
  digestsOf: DigestsOf
): Effect.fn.Return<Step, never, Digest.Digest> {
  if (segment.sequence !== progress.expected) {
    return broken(progress.expected, `seal ${progress.expected} is missing`)
  }
  const stored = segment.stored
  if (stored === undefined) {
    return broken(segment.sequence, `seal ${segment.sequence} is missing, though transactions name it`)
  }
  if (stored.previousHash !== progress.previous) {
    return broken(
      segment.sequence,
      `its previousHash ${stored.previousHash} is not the hash of the seal before, ${progress.previous}`
    )
  }
  const transactions: Array<SealableTransaction> = []
  for (const member of segment.members) {
    if (member.transaction === undefined) {
      return broken(segment.sequence, `transaction ${member.transactionId} is missing`, member.transactionId)
    }
    transactions.push(member.transaction)
  }
  const computed = yield* sha256Hex(sealMessageOf(progress.previous, transactions))
  if (computed !== stored.hash || stored.transactions !== segment.members.length) {
    return yield* explain(segment, stored.hash, computed, digestsOf)
  }
  return {
    _tag: "Continue",
    progress: {
      previous: computed,
      expected: progress.expected + 1,
      transactions: progress.transactions + segment.members.length,
      seals: progress.seals + 1,
      headSeen: progress.headSeen || computed === head
    }
  } as const
})

/**
 * Recomputes the chain from `history` (every seal from the first, in sequence order) and compares
 * each seal with what is stored: the first difference ends it. With `head`, the chain must also
 * contain a seal of that hash (a digest published earlier still holds). One seal is held at a time.
 */
export const verify = Effect.fnUntraced(function* (
  history: Stream.Stream<SealSegment>,
  options: { readonly head?: string | undefined; readonly digestsOf: DigestsOf }
): Effect.fn.Return<Verification, never, Digest.Digest> {
  let progress: Progress = { previous: GENESIS_HASH, expected: 1, transactions: 0, seals: 0, headSeen: false }
  let failure: Verification | undefined
  yield* Stream.runForEachWhile(history, (segment) =>
    Effect.map(check(progress, segment, options.head, options.digestsOf), (step) => {
      if (step._tag === "Continue") {
        progress = step.progress
        return true
      }
      failure = step
      return false
    })
  )
  if (failure !== undefined) return failure
  const totals = { transactions: progress.transactions, seals: progress.seals }
  if (options.head !== undefined && !progress.headSeen) {
    return { _tag: "HeadNotFound", head: options.head, ...totals } as const
  }
  return { _tag: "Verified", head: progress.previous, ...totals } as const
})
