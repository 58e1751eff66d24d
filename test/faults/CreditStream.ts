import { assert, it } from "@effect/vitest"
import { clientFor, freshDatabaseUrl } from "@payments-gaming/adapters/test/support/TestDatabase"
import { credit, unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect, Fiber, type Scope } from "effect"
import type { SqlClient } from "effect/sql"
import { describe, inject } from "vitest"
import { formatMinor, linkAccount, send, signWebhook, tokenFor, WEBHOOK } from "../support/ServerProcess.ts"

// The stream of provider credits the fault tests send, and what they read back from the database
// afterwards to show every credit landed exactly once.

export interface Credit {
  readonly reference: string
  readonly body: string
  readonly settledMinor: bigint
}

/** Credit `index` of `run`: its own reference, the amount less the fee settled; `numeric` sends the amount as a JSON number. */
export const makeCredit = (options: {
  readonly index: number
  readonly accountNumber: string
  readonly run: string
  readonly amountMinor: bigint
  readonly feeMinor: bigint
  readonly numeric?: boolean
}): Credit => {
  const settledMinor = options.amountMinor - options.feeMinor
  const reference = `${options.run}-${String(options.index).padStart(5, "0")}`
  const amount = formatMinor(options.amountMinor)
  const body = JSON.stringify(
    credit({
      reference,
      accountNumber: options.accountNumber,
      amount: options.numeric === true ? Number(amount) : amount,
      fee: formatMinor(options.feeMinor),
      settled: formatMinor(settledMinor)
    })
  )
  return { reference, body, settledMinor }
}

/** A new user (named after `label`) with a virtual account linked to them, their NGN cash account and a token. */
export const linkedUser = (port: number, label: string) =>
  Effect.gen(function* () {
    const userId = unique(label)
    const accountNumber = String(Math.floor(1e9 + Math.random() * 8e9))
    yield* linkAccount(port, accountNumber, userId)
    return { userId, accountNumber, userAccount: `user:${userId}:cash:NGN`, token: yield* tokenFor(userId) }
  })

/** The figures of a fault run, on one line the CI log keeps, with the seconds since `started`. */
export const logFigures = (label: string, started: number, figures: Record<string, unknown>) =>
  console.log(`[${label}] ${JSON.stringify({ ...figures, seconds: ((Date.now() - started) / 1000).toFixed(1) })}`)

/** A signed delivery of `next` under `requestId`, on its own connection. */
export const sendCredit = (port: number, next: Credit, requestId: string) =>
  send(port, WEBHOOK, {
    method: "POST",
    body: next.body,
    headers: {
      "content-type": "application/json",
      "x-provider-signature": signWebhook(next.body),
      "x-request-id": requestId
    }
  })

/** The stored outcome of each of `references`; fails unless each has at most one event. */
export const storedOutcomes = (sql: SqlClient.SqlClient, references: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const rows = yield* sql<{ reference: string; outcome: string }>`
      SELECT reference, outcome FROM webhook_events WHERE reference IN ${sql.in(references)}`
    const stored = new Map(rows.map((row) => [row.reference, row.outcome]))
    assert.strictEqual(stored.size, rows.length, "at most one event per reference")
    return stored
  })

/** The ledger's balance of `account` in minor units, as text. */
export const ledgerBalance = (sql: SqlClient.SqlClient, account: string) =>
  Effect.map(
    sql<{ balance: string }>`SELECT balance::text AS balance FROM ledger_accounts WHERE id = ${account}`,
    (rows) => rows[0]?.balance
  )

/** The postings of the credits of `references` to `account`, keyed by their ledger key. */
export const creditPostings = (sql: SqlClient.SqlClient, references: ReadonlyArray<string>, account: string) => {
  const keys = references.map((reference) => `virtualaccount.credit:${reference}`)
  return sql<{ key: string; amount: string }>`
    SELECT t.idempotency_key AS key, p.amount_minor::text AS amount
    FROM ledger_transactions t JOIN ledger_postings p ON p.transaction_id = t.id
    WHERE t.idempotency_key IN ${sql.in(keys)} AND p.account_id = ${account}`
}

/** The webhook events of `references`, counted by outcome. */
export const outcomeCounts = (sql: SqlClient.SqlClient, references: ReadonlyArray<string>) =>
  sql<{ outcome: string; count: string }>`
    SELECT outcome, count(*)::text AS count FROM webhook_events
    WHERE reference IN ${sql.in(references)} GROUP BY outcome`

/**
 * `concurrency` workers running `step(0)`, `step(1)`, … (each number once, across them all) until
 * the returned `stop` is run; `stop` waits for the steps in flight to finish.
 */
export const startLoad = <E, R>(concurrency: number, step: (n: number) => Effect.Effect<void, E, R>) =>
  Effect.gen(function* () {
    let stopping = false
    let sequence = 0
    const worker = Effect.gen(function* () {
      while (!stopping) yield* step(sequence++)
    })
    const workers = yield* Effect.forkChild(
      Effect.all(
        Array.from({ length: concurrency }, () => worker),
        { concurrency: "unbounded", discard: true }
      )
    )
    return Effect.suspend(() => {
      stopping = true
      return Fiber.join(workers)
    })
  })

/**
 * A fresh database, a client on it to inspect what the server stored, and when the test began. The
 * client has one connection: killing every other backend (`pid <> pg_backend_pid()`) spares it.
 */
const inspectedDatabase = Effect.gen(function* () {
  const started = Date.now()
  const url = yield* freshDatabaseUrl
  return { url, direct: yield* clientFor(url), started }
})

/**
 * The fault test `title` of `suite`, in real time within `timeout`, on a fresh database. It needs a
 * real PostgreSQL server, one the test inspects while the server process is down or cut off (the
 * embedded PGlite lives inside the server process); CI (CI=true) always has one.
 */
export const faultTest = <A, E>(
  suite: string,
  title: string,
  timeout: number,
  body: (database: Effect.Success<typeof inspectedDatabase>) => Effect.Effect<A, E, Scope.Scope>
) =>
  describe.runIf(inject("databaseMode") === "postgres")(suite, () => {
    it.live(title, () => Effect.flatMap(inspectedDatabase, body), timeout)
  })
