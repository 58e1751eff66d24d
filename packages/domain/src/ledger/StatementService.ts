import { Context, Effect, Layer } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { Unit } from "../money/index.ts"
import { InvalidStatementCursor, InvalidStatementPeriod } from "./Errors.ts"
import { LedgerStatement } from "./LedgerStatement.ts"
import { type StatementPage, toStatementItem } from "./Statement.ts"
import { StatementIds } from "./StatementIds.ts"

/** The largest statement page; the edges refuse more, this only makes sure. */
export const MAX_STATEMENT_PAGE = 200

export interface StatementQuery {
  readonly currency?: Unit | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
  /** What a previous page handed out as `nextCursor` (the id of its last item). */
  readonly after?: string | undefined
  readonly limit: number
}

/** A user's wallet statement: the caller's own (HTTP), or any user's for an operator (admin API, CLI). */
export class StatementService extends Context.Service<
  StatementService,
  {
    /**
     * The user's postings newest first, `limit` at most, after the cursor `after`. Ids and cursors
     * are sealed per user (`StatementIds`); `InvalidStatementCursor` for a cursor that is not this
     * user's, `InvalidStatementPeriod` for `from` not before `to`.
     */
    statement(
      userId: UserId,
      query: StatementQuery
    ): Effect.Effect<StatementPage, InvalidStatementPeriod | InvalidStatementCursor>
  }
>()("@payments-gaming/domain/ledger/StatementService") {
  static readonly layer: Layer.Layer<StatementService, never, LedgerStatement | StatementIds> = Layer.effect(
    this,
    Effect.gen(function* () {
      const ledger = yield* LedgerStatement
      const statementIds = yield* StatementIds

      const statement = Effect.fn("StatementService.statement")(function* (userId: UserId, query: StatementQuery) {
        if (query.from !== undefined && query.to !== undefined && query.from.getTime() >= query.to.getTime()) {
          return yield* new InvalidStatementPeriod({ message: "from must be before to" })
        }
        const ids = yield* statementIds.forUser(userId)
        const before = query.after === undefined ? undefined : ids.open(query.after)
        if (query.after !== undefined && before === undefined) {
          return yield* new InvalidStatementCursor({ message: "not a cursor of this statement" })
        }
        const limit = Math.min(Math.max(Math.trunc(query.limit), 1), MAX_STATEMENT_PAGE)
        // One entry more than the page: whether it exists says if there is a next page, so the last
        // page says so itself rather than an empty one after it.
        const entries = yield* ledger.entries(userId, {
          unit: query.currency,
          from: query.from,
          to: query.to,
          before,
          limit: limit + 1
        })
        const items = entries.slice(0, limit).map((entry) => toStatementItem(entry, ids.seal(entry.id)))
        const last = items.at(-1)
        const page: StatementPage = {
          items,
          nextCursor: entries.length > limit && last !== undefined ? last.id : null
        }
        return page
      })

      return StatementService.of({ statement })
    })
  )
}
