import { assert } from "@effect/vitest"
import { Exit } from "effect"
import type { SqlError } from "effect/sql"

/**
 * The PostgreSQL error under a refused statement's exit: its SQLSTATE, constraint name and message,
 * for tests of what the database itself refuses. Fails the test when the statement succeeded.
 */
export const pgError = (exit: Exit.Exit<unknown, SqlError.SqlError>) => {
  assert.isTrue(Exit.isFailure(exit), "the statement must be refused")
  const error = Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error : undefined
  const cause = (error?.reason as { cause?: { code?: string; constraint?: string; message?: string } } | undefined)
    ?.cause
  return { code: cause?.code, constraint: cause?.constraint, message: cause?.message ?? String(exit) }
}
