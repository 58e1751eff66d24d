import { Context, Effect, Exit, Layer, Option, Semaphore } from "effect"
import type { UserId } from "../auth/Model.ts"
import { COIN, Money, type Unit } from "../money/index.ts"
import type { Account } from "./Account.ts"
import { InsufficientFunds } from "./Errors.ts"
import { type Discrepancy, Ledger } from "./Ledger.ts"
import { type LedgerTransaction, postingMinorUnits } from "./LedgerTransaction.ts"
import { UnitOfWork } from "./UnitOfWork.ts"

/**
 * The in-memory stand-in for the database, shared by every in-memory port so one `transaction`
 * covers them all. Operations are serialised by one lock (the stand-in for row locks) and a failed
 * transaction restores every table, as a rollback would. Stored values must be replaced, never
 * mutated, for the snapshot to hold.
 */
export interface MemoryDatabaseShape {
  table<V>(name: string): Map<string, V>
  /** Runs an operation alone: joins the current transaction, or takes the lock for itself. */
  atomically<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R>
  /** Runs atomically and restores every table if the effect fails. */
  transaction<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R>
}

export class MemoryDatabase extends Context.Service<MemoryDatabase, MemoryDatabaseShape>()(
  "@payments-gaming/domain/ledger/MemoryDatabase"
) {}

const OpenTransactions = Context.Reference<ReadonlySet<object>>(
  "@payments-gaming/domain/ledger/MemoryDatabase/OpenTransactions",
  { defaultValue: () => new Set() }
)

export const makeMemoryDatabase = Effect.sync((): MemoryDatabaseShape => {
  const tables = new Map<string, Map<string, unknown>>()
  const lock = Semaphore.makeUnsafe(1)
  const identity = {}

  const table = <V>(name: string): Map<string, V> => {
    let found = tables.get(name)
    if (found === undefined) {
      found = new Map()
      tables.set(name, found)
    }
    return found as Map<string, V>
  }

  const snapshot = () => new Map([...tables].map(([name, rows]) => [name, new Map(rows)]))

  const restore = (saved: Map<string, Map<string, unknown>>) => {
    for (const [name, rows] of tables) {
      const before = saved.get(name)
      rows.clear()
      if (before !== undefined) for (const [key, value] of before) rows.set(key, value)
    }
  }

  const inside = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(Effect.service(OpenTransactions), (open) =>
      Effect.provideService(effect, OpenTransactions, new Set([...open, identity]))
    )

  const atomically = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(Effect.service(OpenTransactions), (open) =>
      open.has(identity) ? effect : lock.withPermits(1)(inside(effect))
    )

  const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    atomically(
      Effect.suspend(() => {
        const saved = snapshot()
        return Effect.onExit(inside(effect), (exit) =>
          Exit.isFailure(exit) ? Effect.sync(() => restore(saved)) : Effect.void
        )
      })
    )

  return { table, atomically, transaction }
})

export const layerMemoryDatabase = Layer.effect(MemoryDatabase, makeMemoryDatabase)

export const layerMemoryUnitOfWork = Layer.effect(
  UnitOfWork,
  Effect.map(Effect.service(MemoryDatabase), (db) => UnitOfWork.of({ transaction: (effect) => db.transaction(effect) }))
)

interface AccountRow {
  readonly account: Account
  readonly balance: bigint
}

interface TransactionRow {
  readonly transaction: LedgerTransaction
}

const netByAccount = (transaction: LedgerTransaction) => {
  const net = new Map<string, { readonly account: Account; readonly delta: bigint }>()
  for (const posting of transaction.postings) {
    const before = net.get(posting.account.id)?.delta ?? 0n
    net.set(posting.account.id, { account: posting.account, delta: before + postingMinorUnits(posting) })
  }
  return net
}

export const layerMemoryLedger = Layer.effect(
  Ledger,
  Effect.gen(function* () {
    const db = yield* MemoryDatabase
    const accounts = db.table<AccountRow>("ledger.accounts")
    const transactions = db.table<TransactionRow>("ledger.transactions")

    const post = Effect.fn("Ledger.post")((transaction: LedgerTransaction) =>
      db.atomically(
        Effect.suspend(() => {
          const existing = transactions.get(transaction.key)
          if (existing !== undefined) return Effect.succeed({ transaction: existing.transaction, created: false })
          const net = [...netByAccount(transaction).values()].sort((a, b) => (a.account.id < b.account.id ? -1 : 1))
          for (const { account, delta } of net) {
            const balance = accounts.get(account.id)?.balance ?? 0n
            if (account.userId !== null && balance + delta < 0n) {
              const available = Money.formatMinorUnits(account.unit, balance)
              const requested = Money.formatMinorUnits(account.unit, -delta)
              return Effect.fail(
                new InsufficientFunds({
                  accountId: account.id,
                  unit: account.unit,
                  available,
                  requested,
                  message: `insufficient funds: ${available} ${account.unit} available, ${requested} requested`
                })
              )
            }
          }
          for (const { account, delta } of net) {
            const balance = accounts.get(account.id)?.balance ?? 0n
            accounts.set(account.id, { account, balance: balance + delta })
          }
          transactions.set(transaction.key, { transaction })
          return Effect.succeed({ transaction, created: true })
        })
      )
    )

    const find = (key: string) =>
      db.atomically(
        Effect.sync(() => Option.map(Option.fromUndefinedOr(transactions.get(key)), (row) => row.transaction))
      )

    const balance = (account: Account) =>
      db.atomically(Effect.sync(() => Money.fromMinorUnits(account.unit, accounts.get(account.id)?.balance ?? 0n)))

    const balances = (userId: UserId) =>
      db.atomically(
        Effect.sync(() => {
          let coins = 0n
          const cash: Array<Money.Money> = []
          for (const { account, balance } of accounts.values()) {
            if (account.userId !== userId) continue
            if (account.unit === COIN) coins = balance
            else cash.push(Money.fromMinorUnits(account.unit, balance))
          }
          cash.sort((a, b) => (a.currency < b.currency ? -1 : 1))
          return { userId, coins, cash }
        })
      )

    const reconcile = db.atomically(
      Effect.sync(() => {
        const found: Array<Discrepancy> = []
        const sums = new Map<string, bigint>()
        for (const { transaction } of transactions.values()) {
          const perUnit = new Map<Unit, bigint>()
          for (const posting of transaction.postings) {
            const minor = postingMinorUnits(posting)
            perUnit.set(posting.account.unit, (perUnit.get(posting.account.unit) ?? 0n) + minor)
            sums.set(posting.account.id, (sums.get(posting.account.id) ?? 0n) + minor)
          }
          for (const [unit, sum] of perUnit) {
            if (sum !== 0n) {
              found.push({ kind: "unbalanced-transaction", subject: transaction.key, detail: `${unit} sums to ${sum}` })
            }
          }
        }
        for (const { account, balance } of accounts.values()) {
          const sum = sums.get(account.id) ?? 0n
          if (sum !== balance) {
            found.push({ kind: "balance-mismatch", subject: account.id, detail: `balance ${balance}, postings ${sum}` })
          }
          if (account.userId !== null && balance < 0n) {
            found.push({ kind: "negative-user-balance", subject: account.id, detail: `balance ${balance}` })
          }
        }
        return found
      })
    )

    return Ledger.of({ post, find, balance, balances, reconcile })
  })
)

/** Ledger and unit of work in memory, plus the shared `MemoryDatabase` for other in-memory ports. */
export const layerMemory: Layer.Layer<Ledger | UnitOfWork | MemoryDatabase> = Layer.mergeAll(
  layerMemoryLedger,
  layerMemoryUnitOfWork
).pipe(Layer.provideMerge(layerMemoryDatabase))
