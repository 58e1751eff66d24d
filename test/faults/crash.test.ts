import { assert } from "@effect/vitest"
import { unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect } from "effect"
import { tempDir } from "../support/NodeProcess.ts"
import {
  type Delivered,
  deliver,
  formatMinor,
  type NoAnswer,
  ngnBalance,
  startServer
} from "../support/ServerProcess.ts"
import * as CreditStream from "./CreditStream.ts"

const DELIVERIES = 300
const CONCURRENCY = 8
const KILL_AFTER_ACKNOWLEDGED = 100

type Attempt =
  | { readonly _tag: "Answered"; readonly answer: Delivered }
  | { readonly _tag: "NoAnswer"; readonly code: string }

const attempt = (port: number, body: string) =>
  deliver(port, body).pipe(
    Effect.map((answer): Attempt => ({ _tag: "Answered", answer })),
    Effect.catch((error: NoAnswer) => Effect.succeed<Attempt>({ _tag: "NoAnswer", code: error.code }))
  )

const acknowledged = (attempt: Attempt) => attempt._tag === "Answered" && attempt.answer.status === 200

/** Delivery i: its own reference, an amount with cents and, on two thirds of them, a fee. */
const delivery = (i: number, accountNumber: string, run: string) =>
  CreditStream.makeCredit({
    index: i,
    accountNumber,
    run,
    amountMinor: 10_000n + BigInt(i) * 101n + BigInt((i * 37) % 100),
    feeMinor: i % 3 === 0 ? 0n : 25n,
    // Half the amounts as JSON numbers, half as strings: both are read exactly.
    numeric: i % 2 === 1
  })

// A crash needs a database that outlives the server process and that the test can inspect while
// the server is down: PostgreSQL. The embedded PGlite lives inside the server process, so in pglite
// mode this cannot run; CI sets CI=true, which fails the run when PostgreSQL is missing.
CreditStream.faultTest(
  "crash: SIGKILL in the middle of a stream of credits",
  "every credit is applied exactly once after the provider redelivers whatever was not acknowledged",
  90_000,
  ({ url, direct: sql, started }) =>
    Effect.gen(function* () {
      const env = { DATABASE_URL: url, DATA_DIR: yield* tempDir("banking-crash-") }

      const first = yield* startServer(env)
      const { userId, accountNumber, userAccount } = yield* CreditStream.linkedUser(first.port, "user")
      const run = unique("VA-CRASH")
      const deliveries = Array.from({ length: DELIVERIES }, (_, i) => delivery(i, accountNumber, run))
      const references = deliveries.map((d) => d.reference)

      // The stream: CONCURRENCY deliveries at a time; the server is SIGKILLed the moment the
      // KILL_AFTER_ACKNOWLEDGED-th acknowledgement arrives, with other deliveries still in flight.
      // The provider keeps going (those attempts are refused) and will retry whatever it has no 200 for.
      let acks = 0
      let killedAt = 0
      const streamStarted = Date.now()
      const attempts = yield* Effect.forEach(
        deliveries,
        (d) =>
          Effect.gen(function* () {
            const result = yield* attempt(first.port, d.body)
            if (acknowledged(result) && ++acks === KILL_AFTER_ACKNOWLEDGED) {
              killedAt = Date.now() - streamStarted
              yield* first.server.kill("SIGKILL")
            }
            return result
          }),
        { concurrency: CONCURRENCY }
      )
      const exit = yield* first.server.exit(10_000)
      assert.strictEqual(exit.signal, "SIGKILL")

      const ackedBeforeKill = deliveries.filter((_, i) => acknowledged(attempts[i] as Attempt))
      const unacknowledged = deliveries.filter((_, i) => !acknowledged(attempts[i] as Attempt))
      const noAnswer = attempts.filter((a): a is Extract<Attempt, { _tag: "NoAnswer" }> => a._tag === "NoAnswer")
      const refused = noAnswer.filter((a) => a.code === "ECONNREFUSED").length
      const cutOff = noAnswer.length - refused
      const otherAnswers = attempts.filter((a) => a._tag === "Answered" && a.answer.status !== 200)
      assert.deepStrictEqual(otherAnswers, [], "before the kill every answer is a 200")
      assert.isAtLeast(ackedBeforeKill.length, KILL_AFTER_ACKNOWLEDGED)
      assert.isAbove(unacknowledged.length, 0, "the kill left deliveries unacknowledged")

      // Durability: what was acknowledged survived the crash; some unacknowledged ones may have
      // committed too (killed between commit and answer): redelivery must not apply those twice.
      const stored = yield* CreditStream.storedOutcomes(sql, references)
      for (const d of ackedBeforeKill) assert.isTrue(stored.has(d.reference), `${d.reference} was acknowledged`)
      const committedUnacknowledged = unacknowledged.filter((d) => stored.has(d.reference)).length

      // The provider's retry, on the restarted server: everything unacknowledged, and every fifth
      // acknowledged one as well (providers redeliver those too).
      const second = yield* startServer(env)
      const resample = ackedBeforeKill.filter((_, n) => n % 5 === 0)
      const redeliveries = [...unacknowledged, ...resample]
      const retried = yield* Effect.forEach(redeliveries, (d) => attempt(second.port, d.body), {
        concurrency: CONCURRENCY
      })
      assert.deepStrictEqual(
        retried.map((a) => (a._tag === "Answered" ? a.answer.status : a.code)),
        redeliveries.map(() => 200)
      )

      const expectedMinor = deliveries.reduce((sum, d) => sum + d.settledMinor, 0n)
      assert.strictEqual(yield* ngnBalance(second.port, userId), formatMinor(expectedMinor))
      assert.strictEqual(yield* CreditStream.ledgerBalance(sql, userAccount), expectedMinor.toString())

      const events = yield* CreditStream.outcomeCounts(sql, references)
      assert.deepStrictEqual(events, [{ outcome: "processed", count: String(DELIVERIES) }])
      const keys = references.map((reference) => `virtualaccount.credit:${reference}`)
      const transactions = yield* sql<{ total: string; distinct_keys: string }>`
        SELECT count(*)::text AS total, count(DISTINCT idempotency_key)::text AS distinct_keys
        FROM ledger_transactions WHERE idempotency_key IN ${sql.in(keys)}`
      assert.deepStrictEqual(transactions[0], { total: String(DELIVERIES), distinct_keys: String(DELIVERIES) })
      // Each credit moved its own settled amount into the wallet, once.
      const postings = yield* CreditStream.creditPostings(sql, references, userAccount)
      const credited = new Map(postings.map((row) => [row.key, row.amount]))
      assert.strictEqual(postings.length, DELIVERIES)
      for (const d of deliveries) {
        assert.strictEqual(credited.get(`virtualaccount.credit:${d.reference}`), d.settledMinor.toString(), d.reference)
      }

      const figures = {
        deliveriesSent: DELIVERIES,
        concurrency: CONCURRENCY,
        acknowledgedBeforeKill: ackedBeforeKill.length,
        killedAfterMsOfStream: killedAt,
        unacknowledged: unacknowledged.length,
        cutOffInFlight: cutOff,
        refusedAfterKill: refused,
        committedButUnacknowledged: committedUnacknowledged,
        redelivered: redeliveries.length,
        redeliveredAlreadyAcknowledged: resample.length,
        finalCredited: postings.length,
        walletNGN: formatMinor(expectedMinor)
      }
      CreditStream.logFigures("crash", started, figures)
    })
)
