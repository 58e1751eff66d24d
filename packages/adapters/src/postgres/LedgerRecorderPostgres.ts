import { type Cause, type CausedPosting, LedgerRecorder, type LedgerTransaction } from "@payments-gaming/domain/ledger"
import { Effect, Layer } from "effect"
import { SqlClient, SqlError, type Statement } from "effect/sql"
import { type CauseRows, type CauseShape, type LedgerColumns, type SqlCause, sqlCauseOf } from "./LedgerCause.ts"
import {
  changeUserBalances,
  creditValues,
  LEDGER_SLOTS,
  type LedgerSlot,
  netByAccount,
  recordParts,
  recordValues,
  takesFromUser
} from "./LedgerWrites.ts"
import { noticeValues, OUTBOX_SLOTS, type OutboxSlot, outboxRows } from "./OutboxWrites.ts"
import { type Bind, type Slots, statementTemplate } from "./StatementTemplate.ts"

/** The kinds of statement a cause is written in: alone, with a credit, with a credit and its notice, with a debit. */
type Variant = "alone" | "credit" | "notified" | "debit"

/**
 * `LedgerRecorder` on PostgreSQL: the only writer of `ledger_transactions` and `ledger_postings`
 * beside `LedgerPostgres.post`. A cause (`LedgerCause`) brings its own table's SQL, written in its
 * store's adapter; this one statement wraps the ledger's around it:
 *
 *   WITH <the cause's CTEs>, tx, system_accounts, user_accounts, postings [, notified]
 *   SELECT <the cause's columns>, <posted> AS ledger_posted [FROM …]
 *
 * The posting (`LedgerWrites.recordParts`) is gated on the cause's `written` condition, so a
 * cause that wrote nothing (a duplicate event, a stale or refused spin) posts nothing; its
 * notification (`OutboxWrites.outboxRows`, the outbox adapter's SQL) on the posting's key row `tx`
 * being new, so a posting the ledger held already is not announced again. All of it is one
 * statement, atomic on its own: no BEGIN or COMMIT round trip, and the cause, posting, notification
 * and the cause's answer (with what it asked of the ledger: `LedgerColumns`) are one round trip
 * (issue 16). A statement that fails (a unique violation of the cause's own keys) writes nothing.
 *
 * The statement is a template (`StatementTemplate`) per shape of cause and per variant (alone, a
 * credit, a credit with its notification, a debit), compiled the first time this layer meets the
 * pair and kept for the layer's life: each write binds only its values. A debit's statement writes
 * user balances only as row locks (`recordParts` without `creditUsers`); the conditional updates
 * follow it in the same transaction (a savepoint inside the caller's), which a refusal rolls back,
 * cause included.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const balanceStored = (account: string) => sql`(SELECT balance FROM ledger_accounts WHERE id = ${account})`
  const noPosting: LedgerColumns = {
    held: sql`false`,
    posted: sql`false`,
    balanceAfter: (account) => sql`COALESCE(${balanceStored(account)}, 0)`
  }
  const withPosting = (slot: Slots<LedgerSlot>, creditUsers: boolean): LedgerColumns => ({
    held: sql`EXISTS (SELECT 1 FROM ledger_transactions WHERE idempotency_key = ${slot.txKey})`,
    posted: sql`EXISTS (SELECT 1 FROM tx)`,
    // The credit's new balance (`user_accounts` returns it), else the balance as the statement found
    // it. After a debit the balance changes only after the statement, so it has no such column.
    balanceAfter: (account) => {
      if (!creditUsers) throw new Error("ledger statement: no balance after a debit inside its statement")
      return sql`COALESCE((SELECT balance FROM user_accounts WHERE id = ${account}), ${balanceStored(account)}, 0)`
    }
  })

  const statement = (
    cause: ReturnType<CauseShape<string>["build"]>,
    ledger: LedgerColumns,
    ledgerParts: ReadonlyArray<Statement.Fragment>
  ) =>
    sql`WITH ${sql.csv([...cause.parts, ...ledgerParts])}
        SELECT ${cause.columns}, ${ledger.posted} AS ledger_posted${cause.from === undefined ? sql`` : sql` ${cause.from}`}`

  const compile = (shape: CauseShape<string>, variant: Variant): Bind<string> => {
    switch (variant) {
      case "alone":
        return statementTemplate(sql, shape.slots, (slot) =>
          statement(shape.build(sql, slot, noPosting), noPosting, [])
        )
      case "credit":
      case "debit": {
        const creditUsers = variant === "credit"
        return statementTemplate(sql, [...shape.slots, ...LEDGER_SLOTS], (slot) => {
          const ledger = withPosting(slot, creditUsers)
          const cause = shape.build(sql, slot, ledger)
          return statement(cause, ledger, recordParts(sql, slot, creditUsers, cause.written))
        })
      }
      case "notified":
        return statementTemplate(sql, [...shape.slots, ...LEDGER_SLOTS, ...OUTBOX_SLOTS], (slot) => {
          const ledger = withPosting(slot, true)
          const cause = shape.build(sql, slot, ledger)
          return statement(cause, ledger, [
            ...recordParts(sql, slot, true, cause.written),
            sql`notified AS (${outboxRows(sql, slot as Slots<OutboxSlot>, sql`EXISTS (SELECT 1 FROM tx)`)})`
          ])
        })
    }
  }

  // Compiled once per shape and variant for the life of the layer (the causes' shapes are module
  // constants of their adapters).
  const templates = new Map<CauseShape<string>, Map<Variant, Bind<string>>>()
  const template = (shape: CauseShape<string>, variant: Variant) => {
    let byVariant = templates.get(shape)
    if (byVariant === undefined) {
      byVariant = new Map()
      templates.set(shape, byVariant)
    }
    let bind = byVariant.get(variant)
    if (bind === undefined) {
      bind = compile(shape, variant)
      byVariant.set(variant, bind)
    }
    return bind
  }

  /** Runs the cause's statement; its refusal is the cause's error, any other failure a defect. */
  const run = <A, E>(cause: SqlCause<A, E>, variant: Variant, values: Readonly<Record<string, unknown>>) =>
    Effect.suspend(() => template(cause.shape, variant)<Record<string, unknown>>({ ...cause.values, ...values })).pipe(
      Effect.catchIf(SqlError.isSqlError, (error) => {
        const refused = cause.refused(error)
        return refused === undefined ? Effect.die(error) : Effect.fail(refused)
      })
    )

  // The ledger's own result column (`statement`): whether the statement wrote the posting.
  const posted = (rows: CauseRows) => rows[0]?.ledger_posted === true

  // Untraced, as the credits and spins it writes (see BankingService.receive for the cost). Functions
  // made once, not generators written per call: V8 keeps every generator function object it runs,
  // and all it closed over, past the young collections (issue 35, docs/benchmarks.md "Seventeenth
  // session").
  const record = Effect.fnUntraced(function* <A, E>(cause: Cause<A, E>, posting?: CausedPosting) {
    const own = yield* sqlCauseOf(cause)
    if (posting === undefined) return yield* own.answer(yield* run(own, "alone", {}))
    // Throws (a defect) for a posting that takes from a user: that is `recordDebit`'s.
    const ledger = yield* Effect.try({ try: () => creditValues(posting.transaction), catch: (error) => error }).pipe(
      Effect.orDie
    )
    const rows =
      posting.notice === undefined
        ? yield* run(own, "credit", ledger)
        : yield* run(own, "notified", { ...ledger, ...(yield* noticeValues(posting.notice)) })
    return yield* own.answer(rows)
  })

  const debitInTransaction = Effect.fnUntraced(function* <A, E>(
    own: SqlCause<A, E>,
    transaction: LedgerTransaction.LedgerTransaction,
    moves: ReturnType<typeof netByAccount>
  ) {
    const rows = yield* run(own, "debit", recordValues(transaction, moves, false))
    if (posted(rows)) yield* changeUserBalances(sql, moves)
    return yield* own.answer(rows)
  })

  const recordDebit = Effect.fnUntraced(function* <A, E>(
    cause: Cause<A, E>,
    transaction: LedgerTransaction.LedgerTransaction
  ) {
    const own = yield* sqlCauseOf(cause)
    const moves = netByAccount(transaction)
    if (!takesFromUser(moves)) return yield* record(cause, { transaction })
    return yield* sql
      .withTransaction(debitInTransaction(own, transaction, moves))
      .pipe(Effect.catchIf(SqlError.isSqlError, Effect.die))
  })

  return LedgerRecorder.of({ record, recordDebit })
})

/** Needs a `SqlClient` on a migrated database. */
export const layer: Layer.Layer<LedgerRecorder, never, SqlClient.SqlClient> = Layer.effect(LedgerRecorder, make)
