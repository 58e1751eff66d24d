import { assert, describe, it } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import {
  layerCachedVirtualAccounts,
  VIRTUAL_ACCOUNT_CACHE_SIZE,
  VIRTUAL_ACCOUNT_TTL_MILLIS,
  type VirtualAccount,
  VirtualAccounts
} from "@payments-gaming/domain/banking"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"

/**
 * The cache in front of a store that counts its reads and lets the test change a link behind the
 * service's back, as an operator's SQL would.
 */
const makeStore = () => {
  const links = new Map<string, VirtualAccount>()
  const reads: Array<string> = []
  const store = VirtualAccounts.of({
    find: (accountNumber) =>
      Effect.sync(() => {
        reads.push(accountNumber)
        return Option.fromUndefinedOr(links.get(accountNumber))
      }),
    insert: (account) =>
      Effect.sync(() => {
        const existing = links.get(account.accountNumber)
        if (existing !== undefined) return { created: false, account: existing }
        const created: VirtualAccount = { ...account, createdAt: new Date(0) }
        links.set(account.accountNumber, created)
        return { created: true, account: created }
      })
  })
  const link = (accountNumber: string, userId: string): VirtualAccount => ({
    accountNumber,
    userId: userId as UserId,
    currency: "NGN",
    accountName: null,
    bankName: null,
    createdAt: new Date(0)
  })
  return {
    links,
    reads,
    link,
    cached: layerCachedVirtualAccounts.pipe(Layer.provide(Layer.succeed(VirtualAccounts, store)))
  }
}

const userOf = (found: Option.Option<VirtualAccount>) => Option.map(found, (account) => account.userId)

describe("layerCachedVirtualAccounts", () => {
  it.effect("reads a known link once per TTL, and again after it", () => {
    const { links, reads, link, cached } = makeStore()
    return Effect.gen(function* () {
      const accounts = yield* VirtualAccounts
      links.set("9000000001", link("9000000001", "alice"))
      for (let i = 0; i < 3; i++)
        assert.deepStrictEqual(userOf(yield* accounts.find("9000000001")), Option.some("alice"))
      assert.deepStrictEqual(reads, ["9000000001"])
      // A change made behind the service's back is seen once the TTL has run out.
      links.set("9000000001", link("9000000001", "bob"))
      yield* TestClock.adjust(VIRTUAL_ACCOUNT_TTL_MILLIS - 1)
      assert.deepStrictEqual(userOf(yield* accounts.find("9000000001")), Option.some("alice"))
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(userOf(yield* accounts.find("9000000001")), Option.some("bob"))
      assert.deepStrictEqual(reads, ["9000000001", "9000000001"])
    }).pipe(Effect.provide(cached))
  })

  it.effect("never remembers an unknown number: a link made meanwhile is found at once", () => {
    const { links, reads, link, cached } = makeStore()
    return Effect.gen(function* () {
      const accounts = yield* VirtualAccounts
      assert.isTrue(Option.isNone(yield* accounts.find("9000000002")))
      links.set("9000000002", link("9000000002", "carol"))
      assert.deepStrictEqual(userOf(yield* accounts.find("9000000002")), Option.some("carol"))
      assert.strictEqual(reads.length, 2)
    }).pipe(Effect.provide(cached))
  })

  it.effect("keeps a link it made, and no more than its size", () => {
    const { reads, cached } = makeStore()
    return Effect.gen(function* () {
      const accounts = yield* VirtualAccounts
      const make = (n: number) => ({
        accountNumber: String(8000000000 + n),
        userId: `user-${n}` as UserId,
        currency: "NGN" as const,
        accountName: null,
        bankName: null
      })
      for (let n = 0; n <= VIRTUAL_ACCOUNT_CACHE_SIZE; n++) yield* accounts.insert(make(n))
      // The newest is known without a read; the first made was dropped for it.
      assert.deepStrictEqual(
        userOf(yield* accounts.find(make(VIRTUAL_ACCOUNT_CACHE_SIZE).accountNumber)),
        Option.some(`user-${VIRTUAL_ACCOUNT_CACHE_SIZE}`)
      )
      assert.strictEqual(reads.length, 0)
      assert.deepStrictEqual(userOf(yield* accounts.find(make(0).accountNumber)), Option.some("user-0"))
      assert.strictEqual(reads.length, 1)
    }).pipe(Effect.provide(cached))
  })
})
