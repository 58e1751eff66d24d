import { Api } from "@payments-gaming/api/Api"
import { badRequest, conflict } from "@payments-gaming/api/ApiErrors"
import { CurrentUser } from "@payments-gaming/api/middleware/CurrentUser"
import type { UserId } from "@payments-gaming/domain/auth"
import { BankingService } from "@payments-gaming/domain/banking"
import { StatementService } from "@payments-gaming/domain/ledger"
import type { Unit } from "@payments-gaming/domain/money"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ok, respond } from "../Respond.ts"

const conflictError = (error: { readonly message: string }) => Effect.fail(conflict(error.message))

const DEFAULT_STATEMENT_LIMIT = 50

/**
 * One statement page for `userId`; a period with `from` not before `to` is a 400 naming both, a
 * cursor that is not this user's a 400 naming it.
 */
const statementOf =
  (statements: StatementService["Service"]) =>
  (
    userId: UserId,
    query: {
      readonly limit?: number
      readonly cursor?: string
      readonly currency?: Unit
      readonly from?: Date
      readonly to?: Date
    }
  ) =>
    statements
      .statement(userId, {
        currency: query.currency,
        from: query.from,
        to: query.to,
        after: query.cursor,
        limit: query.limit ?? DEFAULT_STATEMENT_LIMIT
      })
      .pipe(
        Effect.catchTags({
          InvalidStatementPeriod: (error) =>
            Effect.fail(
              badRequest("Invalid statement period", [
                { path: "from", message: error.message },
                { path: "to", message: error.message }
              ])
            ),
          // Well formed, but not a cursor this user's statement handed out (another user's, or forged).
          InvalidStatementCursor: () =>
            Effect.fail(
              badRequest("Invalid cursor", [
                { path: "cursor", message: "an opaque cursor from a previous page's nextCursor" }
              ])
            )
        }),
        Effect.flatMap((page) => ok("Wallet transactions fetched", page))
      )

export const WalletHandlers = HttpApiBuilder.group(Api, "wallet", (handlers) =>
  Effect.gen(function* () {
    const banking = yield* BankingService
    const statement = statementOf(yield* StatementService)
    return handlers
      .handle(
        "wallet",
        Effect.fnUntraced(function* () {
          const user = yield* CurrentUser
          return yield* ok("Wallet fetched", yield* banking.wallet(user.userId))
        })
      )
      .handle("statement", ({ query }) => Effect.flatMap(CurrentUser, (user) => statement(user.userId, query)))
  })
)

export const BankingAdminHandlers = HttpApiBuilder.group(Api, "bankingAdmin", (handlers) =>
  Effect.gen(function* () {
    const banking = yield* BankingService
    const statement = statementOf(yield* StatementService)
    return handlers
      .handle("linkVirtualAccount", ({ params, payload }) =>
        banking.linkVirtualAccount(params.accountNumber, payload).pipe(
          Effect.catchTag("VirtualAccountConflict", conflictError),
          Effect.flatMap(({ created, account }) =>
            ok(created ? "Virtual account linked" : "Virtual account already linked", account, created ? 201 : 200)
          ),
          Effect.map(respond)
        )
      )
      .handle("recordTransfer", ({ payload }) =>
        banking.recordTransfer(payload).pipe(
          Effect.catchTags({
            TransferConflict: conflictError,
            InsufficientFunds: conflictError,
            InvalidAmount: (error) =>
              Effect.fail(badRequest("Invalid amount", [{ path: "amount", message: error.message }]))
          }),
          Effect.flatMap(({ created, transfer }) =>
            ok(created ? "Transfer recorded" : "Transfer already recorded", transfer, created ? 201 : 200)
          ),
          Effect.map(respond)
        )
      )
      .handle("userStatement", ({ params, query }) => statement(params.userId, query))
  })
)
