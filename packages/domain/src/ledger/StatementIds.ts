import { Context, type Effect } from "effect"
import type { UserId } from "../auth/Model.ts"

/** One user's statement ids: a posting id sealed into the text they see, and opened back. */
export interface StatementIdsOf {
  /** The id `userId` sees for the posting numbered `postingId`: the same text every time. */
  readonly seal: (postingId: bigint) => string
  /** The posting id behind `text`, when it is one `seal` gave this user; otherwise undefined. */
  readonly open: (text: string) => bigint | undefined
}

/**
 * The ids and cursors of the wallet statement (issue 34). Posting ids are global, so a client who
 * saw them would learn how many postings the whole system made between two of theirs; each is
 * sealed instead, per user, into text that says nothing about it and that only this user's
 * statement takes back as a cursor (another user's, or a forged one, is refused). Keyed by a
 * secret in production (adapters: `ledger/StatementIdCipher`).
 */
export class StatementIds extends Context.Service<
  StatementIds,
  {
    /** The sealing of `userId`'s ids, worked out once for a page. */
    readonly forUser: (userId: UserId) => Effect.Effect<StatementIdsOf>
  }
>()("@payments-gaming/domain/ledger/StatementIds") {}
