import { Context, type Effect, type Option } from "effect"
import type { UserId } from "../auth/Model.ts"
import type { Currency } from "../money/index.ts"
import type { VirtualAccount } from "./Model.ts"

export interface NewVirtualAccount {
  readonly accountNumber: string
  readonly userId: UserId
  readonly currency: Currency
  readonly accountName: string | null
  readonly bankName: string | null
}

/** Which user (and currency) a provider virtual account number belongs to. */
export class VirtualAccounts extends Context.Service<
  VirtualAccounts,
  {
    /**
     * Inserts the link unless the number is taken; either way returns the stored link, so the
     * caller can tell a repeat from a conflict. Atomic against concurrent links of the same number.
     */
    insert(account: NewVirtualAccount): Effect.Effect<{ readonly created: boolean; readonly account: VirtualAccount }>
    find(accountNumber: string): Effect.Effect<Option.Option<VirtualAccount>>
  }
>()("@payments-gaming/domain/banking/VirtualAccounts") {}
