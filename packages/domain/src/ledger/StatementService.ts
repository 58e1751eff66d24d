import { Context, Effect, Layer } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { Unit } from "../money/index.ts"
import { InvalidStatementPeriod } from "./Errors.ts"
import { LedgerStatement } from "./LedgerStatement.ts"
import { type StatementPage, type StatementPosition, toStatementItem } from "./Statement.ts"

/** The largest statement page; the edges refuse more, this only makes sure. */
export const MAX_STATEMENT_PAGE = 200

export interface StatementQuery {
  readonly currency?: Unit | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
  /** The position a previous page handed out as `nextCursor`. */
  readonly after?: StatementPosition | undefined
  readonly limit: number
}

/** A user's wallet statement: the caller's own (HTTP), or any user's for an operator (admin API, CLI). */
export class StatementService extends Context.Service<
  StatementService,
  {
    statement(userId: UserId, query: StatementQuery): Effect.Effect<StatementPage, InvalidStatementPeriod>
  }
>()("@payments-gaming/domain/ledger/StatementService") {
  static readonly layer: Layer.Layer<StatementService, never, LedgerStatement> = Layer.effect(
    this,
    Effect.gen(function* () {
      const ledger = yield* LedgerStatement

      const statement = Effect.fn("StatementService.statement")(function* (userId: UserId, query: StatementQuery) {
        if (query.from !== undefined && query.to !== undefined && query.from.getTime() >= query.to.getTime()) {
          return yield* new InvalidStatementPeriod({ message: "from must be before to" })
        }
        const limit = Math.min(Math.max(Math.trunc(query.limit), 1), MAX_STATEMENT_PAGE)
        // One entry more than the page: whether it exists says if there is a next page, so the last
        // page says so itself rather than an empty one after it.
        const entries = yield* ledger.entries(userId, {
          unit: query.currency,
          from: query.from,
          to: query.to,
          before: query.after?.id,
          limit: limit + 1
        })
        const page = entries.slice(0, limit)
        const last = page.at(-1)
        return {
          items: page.map(toStatementItem),
          nextCursor: entries.length > limit && last !== undefined ? { id: last.id } : null
        }
      })

      return StatementService.of({ statement })
    })
  )
}
