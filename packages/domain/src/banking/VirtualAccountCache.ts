import { Clock, Effect, Layer, Option } from "effect"
import type { VirtualAccount } from "./Model.ts"
import { VirtualAccounts } from "./VirtualAccounts.ts"

/**
 * How long a link read from the store is used without reading it again. A link is never changed
 * or removed by the service (`VirtualAccounts.insert` keeps the first one), so this bounds only a
 * change made behind its back, in SQL: credits follow it within this time (docs/operations.md).
 */
export const VIRTUAL_ACCOUNT_TTL_MILLIS = 60_000

/** Links kept at most; the oldest read goes first. About 200 bytes each. */
export const VIRTUAL_ACCOUNT_CACHE_SIZE = 10_000

/**
 * `VirtualAccounts` remembering the links it has read or made for `VIRTUAL_ACCOUNT_TTL_MILLIS`: a
 * deposit to an account seen in that time needs no read of its own, and the credit is then one
 * statement (issue 16). An unknown number is not remembered, so a link made meanwhile, by any
 * instance, is found at once. A clock that moved backwards (a test's) reads again. One cache per
 * layer build, so per service instance.
 */
export const layerCachedVirtualAccounts: Layer.Layer<VirtualAccounts, never, VirtualAccounts> = Layer.effect(
  VirtualAccounts,
  Effect.gen(function* () {
    const inner = yield* VirtualAccounts
    // Insertion order is read order: re-reading a number moves it to the end.
    const known = new Map<string, { readonly account: VirtualAccount; readonly readAt: number }>()
    const keep = (account: VirtualAccount, readAt: number) => {
      known.delete(account.accountNumber)
      known.set(account.accountNumber, { account, readAt })
      if (known.size > VIRTUAL_ACCOUNT_CACHE_SIZE) known.delete(known.keys().next().value as string)
    }
    return VirtualAccounts.of({
      find: (accountNumber) =>
        Effect.flatMap(Clock.currentTimeMillis, (millis) => {
          const cached = known.get(accountNumber)
          if (cached !== undefined && millis >= cached.readAt && millis - cached.readAt < VIRTUAL_ACCOUNT_TTL_MILLIS) {
            return Effect.succeed(Option.some(cached.account))
          }
          return Effect.tap(inner.find(accountNumber), (found) =>
            Effect.sync(() => {
              if (Option.isSome(found)) keep(found.value, millis)
              else known.delete(accountNumber)
            })
          )
        }),
      insert: (account) =>
        Effect.flatMap(Clock.currentTimeMillis, (millis) =>
          Effect.tap(inner.insert(account), (stored) => Effect.sync(() => keep(stored.account, millis)))
        )
    })
  })
)
