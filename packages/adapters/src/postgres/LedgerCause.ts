import type { Cause } from "@payments-gaming/domain/ledger"
import { Effect } from "effect"
import type { SqlClient, SqlError, Statement } from "effect/sql"
import type { Slots } from "./StatementTemplate.ts"

/**
 * What the ledger's statement offers the SQL of a cause (`CauseShape.build`), so the cause's own
 * SQL need not name a ledger table. `held` is a condition the cause's CTEs may use; `posted` and
 * `balanceAfter` read CTEs written after the cause's, so only its `columns` may use them.
 */
export interface LedgerColumns {
  /** True when the ledger held the posting's key before the statement (false without a posting). */
  readonly held: Statement.Fragment
  /** True when the statement wrote the posting (false without one, or when the cause wrote nothing). */
  readonly posted: Statement.Fragment
  /** A user account's balance after the statement, its posting included (0 for an account without a row). */
  readonly balanceAfter: (account: string) => Statement.Fragment
}

/** A cause's part of the ledger's statement (`LedgerRecorderPostgres`). */
export interface CauseStatement {
  /** Its common table expressions, written before the ledger's. */
  readonly parts: ReadonlyArray<Statement.Fragment>
  /** A condition: the cause's record was written by the statement. The posting is written only then. */
  readonly written: Statement.Fragment
  /** The statement's result columns (the ledger adds its own after them). */
  readonly columns: Statement.Fragment
  /** Where the result's rows come from (`FROM …`), or nothing for exactly one row. */
  readonly from?: Statement.Fragment | undefined
}

/**
 * The SQL of one kind of cause, written once (a module constant of the cause's adapter): its slots
 * and its part of the statement. The ledger's adapter compiles it, once per layer and per kind of
 * posting, into a statement template with its own slots (`StatementTemplate`): no SQL is built per
 * request, only the values are. Its slot names must differ from the ledger's and the outbox's.
 */
export interface CauseShape<Slot extends string> {
  readonly name: string
  readonly slots: ReadonlyArray<Slot>
  readonly build: (sql: SqlClient.SqlClient, slot: Slots<Slot>, ledger: LedgerColumns) => CauseStatement
}

/** The result rows of a statement the ledger ran for a cause: the cause's columns, and the ledger's. */
export type CauseRows = ReadonlyArray<Record<string, unknown>>

/** A `Cause` of the PostgreSQL stores: its shape, this cause's values, and how to read the write's answer. */
export interface SqlCause<A, E> extends Cause<A, E> {
  readonly implementation: "postgres"
  // biome-ignore lint/suspicious/noExplicitAny: a shape's slot names are its own; the values name them.
  readonly shape: CauseShape<any>
  readonly values: Readonly<Record<string, unknown>>
  /** The write's answer from its rows; it may read more (a duplicate's stored row). Defects are its own. */
  readonly answer: (rows: CauseRows) => Effect.Effect<A>
  /** The cause's refusal when the statement failed on it (a unique violation of its own keys), else undefined. */
  readonly refused: (error: SqlError.SqlError) => E | undefined
}

/** A cause of `shape` with `values` for its slots. */
export const sqlCause = <Slot extends string, Row extends object, A, E = never>(
  shape: CauseShape<Slot>,
  values: Readonly<Record<Slot, unknown>>,
  /** Reads the rows as `Row`: the columns its shape selects (trusted, or decoded here). */
  answer: (rows: ReadonlyArray<Row>) => Effect.Effect<A>,
  refused: (error: SqlError.SqlError) => E | undefined = () => undefined
): Cause<A, E> => {
  const cause: SqlCause<A, E> = {
    implementation: "postgres",
    shape,
    values,
    answer: answer as unknown as (rows: CauseRows) => Effect.Effect<A>,
    refused
  }
  return cause
}

/** The `SqlCause` in `cause`, or a defect: a cause of another implementation cannot be written here. */
export const sqlCauseOf = <A, E>(cause: Cause<A, E>): Effect.Effect<SqlCause<A, E>> =>
  cause.implementation === "postgres"
    ? Effect.succeed(cause as SqlCause<A, E>)
    : Effect.die(new Error(`the PostgreSQL ledger cannot write a ${cause.implementation} cause`))
