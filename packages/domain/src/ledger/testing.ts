import { Context, Effect, Exit, Layer, Option, Result, Semaphore } from "effect"
import { Base64Url } from "effect/encoding"
import type { UserId } from "../auth/Model.ts"
import { COIN, Money, type Unit } from "../money/index.ts"
import type { Account } from "./Account.ts"
import { InsufficientFunds } from "./Errors.ts"
import { type Discrepancy, Ledger } from "./Ledger.ts"
import { type Cause, LedgerRecorder, type Notice } from "./LedgerRecorder.ts"
import { LedgerStatement, type StatementEntriesQuery } from "./LedgerStatement.ts"
import { type LedgerTransaction, postingMinorUnits } from "./LedgerTransaction.ts"
import { balancesAfter, type StatementEntry } from "./Statement.ts"
import { StatementIds } from "./StatementIds.ts"
import { StatementService } from "./StatementService.ts"
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
  Effect.map(Effect.service(MemoryDatabase), (db) =>
    // Memory never loses a connection: an idempotent unit is just run.
    UnitOfWork.of({ transaction: (effect) => db.transaction(effect), idempotent: (effect) => effect })
  )
)

interface AccountRow {
  readonly account: Account
  readonly balance: bigint
}

interface TransactionRow {
  readonly transaction: LedgerTransaction
}

/** One stored posting, numbered in posting order as PostgreSQL's identity numbers them; what the statement reads. */
interface PostingRow {
  readonly id: bigint
  readonly account: Account
  readonly amountMinor: bigint
  readonly key: string
  readonly kind: LedgerTransaction["kind"]
  readonly postedAt: Date
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
    const postings = db.table<PostingRow>("ledger.postings")

    // Numbered as PostgreSQL's identity numbers them, stamped with the (test) clock's time.
    const numberPostings = (transaction: LedgerTransaction) =>
      Effect.map(
        Effect.clockWith((clock) => clock.currentTimeMillis),
        (now) => {
          for (const posting of transaction.postings) {
            const id = BigInt(postings.size + 1)
            postings.set(id.toString(), {
              id,
              account: posting.account,
              amountMinor: postingMinorUnits(posting),
              key: transaction.key,
              kind: transaction.kind,
              postedAt: new Date(now)
            })
          }
        }
      )

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
        }).pipe(Effect.tap(({ created }) => (created ? numberPostings(transaction) : Effect.void)))
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

/** What an in-memory write of a cause did: whether its record is new, and how to answer given whether the posting was written. */
export interface MemoryCauseWrite<A> {
  readonly written: boolean
  readonly answer: (posted: boolean) => Effect.Effect<A>
}

/**
 * A `Cause` of the in-memory stores: a function the memory recorder applies inside its memory
 * transaction, before the posting. `held` says whether the ledger held the posting's key before
 * (false without a posting). Its answer runs after the posting, so it may read the balances.
 */
interface MemoryCause<A, E> extends Cause<A, E> {
  readonly implementation: "memory"
  readonly write: (held: boolean) => Effect.Effect<MemoryCauseWrite<A>, E>
}

/** The in-memory cause that `write` makes (see `MemoryCause`). */
export const memoryCause = <A, E = never>(
  write: (held: boolean) => Effect.Effect<MemoryCauseWrite<A>, E>
): Cause<A, E> => {
  const cause: MemoryCause<A, E> = { implementation: "memory", write }
  return cause
}

/** A `Notice` of the in-memory outbox: its write, run when the posting is new. */
interface MemoryNotice extends Notice {
  readonly implementation: "memory"
  readonly write: Effect.Effect<unknown>
}

export const memoryNotice = (write: Effect.Effect<unknown>): Notice => {
  const notice: MemoryNotice = { implementation: "memory", write }
  return notice
}

const memoryCauseOf = <A, E>(cause: Cause<A, E>) =>
  cause.implementation === "memory"
    ? Effect.succeed(cause as MemoryCause<A, E>)
    : Effect.die(new Error(`the memory recorder cannot write a ${cause.implementation} cause`))

const memoryNoticeOf = (notice: Notice) =>
  notice.implementation === "memory"
    ? Effect.succeed(notice as MemoryNotice)
    : Effect.die(new Error(`the memory recorder cannot write a ${notice.implementation} notice`))

/**
 * `LedgerRecorder` in memory: the cause's write, its posting through `Ledger` when the cause is new,
 * and the notice when the posting is, in one memory transaction (a failure anywhere restores all
 * of it), as PostgreSQL's one statement.
 */
export const layerMemoryRecorder: Layer.Layer<LedgerRecorder, never, MemoryDatabase | Ledger> = Layer.effect(
  LedgerRecorder,
  Effect.gen(function* () {
    const db = yield* MemoryDatabase
    const ledger = yield* Ledger

    const takesFromUser = (transaction: LedgerTransaction) =>
      [...netByAccount(transaction).values()].some(({ account, delta }) => account.userId !== null && delta < 0n)

    const write = <A, E, F>(
      cause: Cause<A, E>,
      transaction: LedgerTransaction | undefined,
      notice: Notice | undefined,
      post: (transaction: LedgerTransaction) => Effect.Effect<{ readonly created: boolean }, F>
    ) =>
      db.transaction(
        Effect.gen(function* () {
          const own = yield* memoryCauseOf(cause)
          const held = transaction !== undefined && Option.isSome(yield* ledger.find(transaction.key))
          const { written, answer } = yield* own.write(held)
          let posted = false
          if (written && transaction !== undefined) posted = (yield* post(transaction)).created
          if (posted && notice !== undefined) yield* (yield* memoryNoticeOf(notice)).write
          return yield* answer(posted)
        })
      )

    // A credit cannot be refused: a refusal would be a bug, as it is on PostgreSQL.
    const postCredit = (transaction: LedgerTransaction) =>
      takesFromUser(transaction)
        ? Effect.die(new Error(`ledger transaction ${transaction.key} takes from a user: use recordDebit`))
        : Effect.orDie(ledger.post(transaction))

    return LedgerRecorder.of({
      record: (cause, posting) => write(cause, posting?.transaction, posting?.notice, postCredit),
      recordDebit: (cause, transaction) => write(cause, transaction, undefined, ledger.post)
    })
  })
)

/** Ledger, its recorder and unit of work in memory, plus the shared `MemoryDatabase` for other in-memory ports. */
export const layerMemory: Layer.Layer<Ledger | LedgerRecorder | UnitOfWork | MemoryDatabase> = Layer.mergeAll(
  layerMemoryRecorder,
  layerMemoryUnitOfWork
).pipe(Layer.provideMerge(layerMemoryLedger), Layer.provideMerge(layerMemoryDatabase))

/**
 * The statement on the in-memory ledger: the postings `layerMemoryLedger` numbered, newest first,
 * each with its account's balance less everything posted to it after (`balancesAfter`).
 */
export const layerMemoryLedgerStatement = Layer.effect(
  LedgerStatement,
  Effect.gen(function* () {
    const db = yield* MemoryDatabase
    const accounts = db.table<AccountRow>("ledger.accounts")
    const postings = db.table<PostingRow>("ledger.postings")

    const entries = (userId: UserId, query: StatementEntriesQuery) =>
      db.atomically(
        Effect.sync(() => {
          const newestFirst = [...postings.values()]
            .filter(
              (row) => row.account.userId === userId && (query.unit === undefined || row.account.unit === query.unit)
            )
            .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
          const after = new Map<bigint, bigint>()
          for (const [accountId, rows] of Map.groupBy(newestFirst, (row) => row.account.id)) {
            const balance = accounts.get(accountId)?.balance ?? 0n
            const balances = balancesAfter(
              balance,
              rows.map((row) => row.amountMinor)
            )
            for (const [index, row] of rows.entries()) after.set(row.id, balances[index] as bigint)
          }
          return newestFirst
            .filter(
              (row) =>
                (query.before === undefined || row.id < query.before) &&
                (query.from === undefined || row.postedAt.getTime() >= query.from.getTime()) &&
                (query.to === undefined || row.postedAt.getTime() < query.to.getTime())
            )
            .slice(0, query.limit)
            .map(
              (row): StatementEntry => ({
                id: row.id,
                occurredAt: row.postedAt,
                kind: row.kind,
                key: row.key,
                unit: row.account.unit,
                amountMinor: row.amountMinor,
                balanceAfterMinor: after.get(row.id) as bigint
              })
            )
        })
      )

    return LedgerStatement.of({ entries })
  })
)

/**
 * `StatementIds` for tests: base64url of the user id and the posting id, so it hides nothing (the
 * production one encrypts: adapters' `ledger/StatementIdCipher`), but binds each id to its user as
 * that one does: another user's id or a forged one does not open.
 */
export const layerMemoryStatementIds: Layer.Layer<StatementIds> = Layer.succeed(
  StatementIds,
  StatementIds.of({
    forUser: (userId) =>
      Effect.succeed({
        seal: (postingId) => Base64Url.encode(`${userId}\u0000${postingId}`),
        open: (text) => {
          const decoded = Base64Url.decodeString(text)
          if (Result.isFailure(decoded)) return undefined
          const prefix = `${userId}\u0000`
          const rest = decoded.success.startsWith(prefix) ? decoded.success.slice(prefix.length) : ""
          return /^[1-9]\d{0,18}$/.test(rest) ? BigInt(rest) : undefined
        }
      })
  })
)

/** The statement use case on the in-memory ledger (needs `layerMemory`'s database). */
export const layerMemoryStatement: Layer.Layer<StatementService, never, MemoryDatabase> = StatementService.layer.pipe(
  Layer.provide([layerMemoryLedgerStatement, layerMemoryStatementIds])
)
