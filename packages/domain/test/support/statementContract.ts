import { assert, type Vitest } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import {
  Ledger,
  Movements,
  replayBreaks,
  type StatementItem,
  type StatementQuery,
  StatementService,
  type UnitOfWork
} from "@payments-gaming/domain/ledger"
import { Money } from "@payments-gaming/domain/money"
import { BigDecimal, Effect, Result } from "effect"
import { freshUser } from "./ledgerContract.ts"

type It = Vitest.MethodsNonLive<Ledger | UnitOfWork | StatementService>

const dec = BigDecimal.fromStringUnsafe
const built = <A, E>(result: Result.Result<A, E>) => Result.getOrThrow(result)

/** One of each movement a user's wallet sees, oldest first: what `history` posts. */
const history = (user: UserId) => {
  const money = { userId: user, currency: "NGN" as const }
  return [
    built(Movements.deposit({ ...money, reference: `VA:${user}:1`, amount: dec("100.50") })),
    built(Movements.coinPrize({ key: `spin-${user}-1`, userId: user, coins: 20n })),
    built(Movements.cashPrize({ ...money, key: `spin-${user}-2`, amount: dec("50") })),
    built(Movements.hold({ ...money, reference: `TR:${user}:hold`, amount: dec("30.25") })),
    built(Movements.returnHold({ ...money, reference: `TR:${user}:hold`, amount: dec("30.25") })),
    built(Movements.hold({ ...money, reference: `TR-2-${user}`, amount: dec("0.50") }))
  ]
}

const statement = (user: UserId, query: Partial<StatementQuery> = {}) =>
  StatementService.use((service) => service.statement(user, { limit: 50, ...query }))

/** Every page of `user`'s statement with `limit`, following the cursor until it is null. */
const allPages = (user: UserId, limit: number, query: Partial<StatementQuery> = {}) =>
  Effect.gen(function* () {
    const items: Array<StatementItem> = []
    let after = query.after
    let pages = 0
    do {
      const page = yield* statement(user, { ...query, limit, after })
      assert.isAtMost(page.items.length, limit)
      if (page.nextCursor !== null) assert.lengthOf(page.items, limit)
      items.push(...page.items)
      after = page.nextCursor ?? undefined
      pages += 1
    } while (after !== undefined)
    return { items, pages }
  })

const shape = (item: StatementItem) => [
  item.kind,
  item.direction,
  item.amount,
  item.balanceAfter,
  item.currency,
  item.reference
]

/**
 * What every `LedgerStatement` must do, behind `StatementService`, on the ledger beside it: in
 * memory or on PostgreSQL. `tick` lets time pass between two postings (the test clock, or the wall
 * clock for a database that stamps postings itself).
 */
export const statementContract = (it: It, tick: Effect.Effect<void>) => {
  it.effect("lists the user's postings newest first, each with its kind, reference and the balance after it", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const user = freshUser("statement")
      const other = freshUser("other")
      yield* ledger.post(
        built(Movements.deposit({ reference: `VA-${other}`, userId: other, currency: "NGN", amount: dec("7") }))
      )
      for (const transaction of history(user)) yield* ledger.post(transaction)

      const page = yield* statement(user)
      assert.isNull(page.nextCursor)
      assert.deepStrictEqual(page.items.map(shape), [
        ["transfer.hold", "DEBIT", "0.50", "150.00", "NGN", `TR-2-${user}`],
        ["transfer.return", "CREDIT", "30.25", "150.50", "NGN", `TR:${user}:hold`],
        ["transfer.hold", "DEBIT", "30.25", "120.25", "NGN", `TR:${user}:hold`],
        ["spin.prize", "CREDIT", "50.00", "150.50", "NGN", `spin-${user}-2`],
        ["spin.prize", "CREDIT", "20", "20", "COIN", `spin-${user}-1`],
        ["deposit", "CREDIT", "100.50", "100.50", "NGN", `VA:${user}:1`]
      ])
      // Ids are the posting ids sealed for the user (StatementIds): unique, and none is a posting id.
      const ids = page.items.map((item) => item.id)
      assert.strictEqual(new Set(ids).size, ids.length)
      for (const id of ids) assert.notMatch(id, /^\d+$/)
      for (const item of page.items) assert.match(item.occurredAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      assert.deepStrictEqual(replayBreaks(page.items), [])

      // The newest balance of each currency is the wallet's.
      const balances = yield* ledger.balances(user)
      assert.strictEqual(balances.coins, 20n)
      assert.strictEqual(Money.format(balances.cash[0]!), "150.00")
      assert.strictEqual(balances.cash[0]!.currency, "NGN")
    })
  )

  it.effect("pages join with no duplicate and no gap, whatever the limit; the last page has no cursor", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const user = freshUser("pages")
      for (const transaction of history(user)) yield* ledger.post(transaction)
      const whole = (yield* statement(user)).items
      assert.lengthOf(whole, 6)
      for (const limit of [1, 2, 4, 6, 200]) {
        const { items, pages } = yield* allPages(user, limit)
        assert.deepStrictEqual(items, whole, `limit ${limit}`)
        assert.strictEqual(pages, Math.max(1, Math.ceil(whole.length / limit)), `limit ${limit}`)
      }
      // Out of range limits are bounded, not refused, here: the edges refuse them.
      assert.lengthOf((yield* statement(user, { limit: 0 })).items, 1)
      assert.lengthOf((yield* statement(user, { limit: 10_000 })).items, 6)
      assert.deepStrictEqual((yield* statement(freshUser("nobody"))).items, [])
    })
  )

  it.effect("a posting made while paging lands above the first page: later pages neither repeat nor skip", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const user = freshUser("concurrent")
      for (const transaction of history(user)) yield* ledger.post(transaction)
      const before = (yield* statement(user)).items
      const first = yield* statement(user, { limit: 2 })
      yield* ledger.post(
        built(Movements.deposit({ reference: `VA-late-${user}`, userId: user, currency: "NGN", amount: dec("5") }))
      )
      const rest = yield* allPages(user, 2, { after: first.nextCursor! })
      const joined = [...first.items, ...rest.items]
      assert.deepStrictEqual(joined, before)
      assert.deepStrictEqual(replayBreaks(joined), [])
      const fresh = (yield* statement(user)).items
      assert.deepStrictEqual(fresh.slice(1), before)
      assert.deepStrictEqual(shape(fresh[0]!), ["deposit", "CREDIT", "5.00", "155.00", "NGN", `VA-late-${user}`])
    })
  )

  it.effect("filters by currency, and by period without changing any balance shown", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const user = freshUser("filters")
      for (const transaction of history(user)) {
        yield* ledger.post(transaction)
        yield* tick
      }
      const whole = (yield* statement(user)).items
      const coins = (yield* statement(user, { currency: "COIN" })).items
      assert.deepStrictEqual(
        coins,
        whole.filter((item) => item.currency === "COIN")
      )
      assert.lengthOf(coins, 1)
      const naira = yield* allPages(user, 2, { currency: "NGN" })
      assert.deepStrictEqual(
        naira.items,
        whole.filter((item) => item.currency === "NGN")
      )
      assert.deepStrictEqual((yield* statement(user, { currency: "USD" })).items, [])

      // [from, to): from the third posting (the cash prize) up to, not including, the fifth.
      const oldestFirst = [...whole].reverse()
      const from = new Date(oldestFirst[2]!.occurredAt)
      const to = new Date(oldestFirst[4]!.occurredAt)
      const period = yield* allPages(user, 1, { from, to })
      assert.deepStrictEqual(period.items, [oldestFirst[3]!, oldestFirst[2]!])
      assert.deepStrictEqual((yield* statement(user, { from: to })).items, [whole[0]!, whole[1]!])
      assert.deepStrictEqual((yield* statement(user, { to: from })).items, [oldestFirst[1]!, oldestFirst[0]!])
      assert.deepStrictEqual((yield* statement(user, { currency: "COIN", from })).items, [])
    })
  )

  it.effect("refuses a period whose from is not before its to", () =>
    Effect.gen(function* () {
      const user = freshUser("period")
      const at = new Date("2026-01-01T00:00:00Z")
      for (const [from, to] of [
        [at, at],
        [new Date(at.getTime() + 1), at]
      ] as const) {
        const refused = yield* Effect.flip(statement(user, { from, to }))
        assert.strictEqual(refused._tag, "InvalidStatementPeriod")
      }
    })
  )
}
