import { BankingService } from "@payments-gaming/domain/banking"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { badRequest, conflict } from "../ApiErrors.ts"
import { ok, respond } from "../Envelope.ts"
import { CurrentUser } from "../middleware/CurrentUser.ts"

const conflictError = (error: { readonly message: string }) => Effect.fail(conflict(error.message))

export const WalletHandlers = HttpApiBuilder.group(Api, "wallet", (handlers) =>
  Effect.gen(function* () {
    const banking = yield* BankingService
    return handlers.handle("wallet", () =>
      Effect.gen(function* () {
        const user = yield* CurrentUser
        return yield* ok("Wallet fetched", yield* banking.wallet(user.userId))
      })
    )
  })
)

export const BankingAdminHandlers = HttpApiBuilder.group(Api, "bankingAdmin", (handlers) =>
  Effect.gen(function* () {
    const banking = yield* BankingService
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
  })
)
