import { assert } from "@effect/vitest"
import { unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect } from "effect"
import { tempDir } from "../support/NodeProcess.ts"
import { deliver, formatMinor, ngnBalance, send, startServer } from "../support/ServerProcess.ts"
import type { Credit } from "./CreditStream.ts"
import * as CreditStream from "./CreditStream.ts"
import { type Answered, assertCleanFailure, assertOutageLogged } from "./OutageAssertions.ts"

const CONCURRENCY = 8
/** Every connection of the server is killed at each of these moments (ms after the load starts). */
const KILLS_AT_MS = [700, 1_400, 2_100, 2_800, 3_500]
const LOAD_MS = 4_200

interface Outcome extends Answered {
  readonly reference: string | undefined
}

const makeCreditOf = (index: number, accountNumber: string, run: string): Credit =>
  CreditStream.makeCredit({ index, accountNumber, run, amountMinor: 10_000n + BigInt(index) * 13n, feeMinor: 0n })

const answered = (requestId: string, kind: string, reference: string | undefined, answer: ReturnType<typeof send>) =>
  answer.pipe(
    Effect.map(
      (delivered): Outcome => ({
        requestId,
        kind,
        reference,
        status: delivered.status,
        text: delivered.text,
        retryAfter: delivered.retryAfter
      })
    ),
    Effect.catch((error) =>
      Effect.succeed<Outcome>({ requestId, kind, reference, status: error.code, text: "", retryAfter: undefined })
    )
  )

// pg_terminate_backend needs a real PostgreSQL server (CI always has one); the embedded PGlite runs
// inside the server process.
CreditStream.faultTest(
  "fault: the database kills every connection under load",
  "a transaction whose connection dropped is run again: no 500, every credit in the ledger once",
  30_000,
  ({ url, direct, started: testStarted }) =>
    Effect.gen(function* () {
      const { server, port } = yield* startServer({
        DATABASE_URL: url,
        DATA_DIR: yield* tempDir("faults-terminate-"),
        RATE_LIMIT_PER_IP: "0",
        RATE_LIMIT_PER_USER: "0",
        LOG_FORMAT: "json",
        // The retry of a transaction is logged at INFO (these tests' servers log from WARN).
        LOG_LEVEL: "info"
      })
      const { userId, accountNumber, userAccount, token } = yield* CreditStream.linkedUser(port, "terminate-user")
      const run = unique("VA-TERMINATE")

      // The load: signed credits, each with a new reference, and one wallet read in four.
      const credits: Array<Credit> = []
      const outcomes: Array<Outcome> = []
      const stopLoad = yield* CreditStream.startLoad(CONCURRENCY, (n) =>
        Effect.gen(function* () {
          const requestId = `terminate-${n}`
          if (n % 4 === 3) {
            const read = send(port, "/v1/wallet", {
              headers: { authorization: `Bearer ${token}`, "x-request-id": requestId }
            })
            outcomes.push(yield* answered(requestId, "wallet", undefined, read))
            return
          }
          const next = makeCreditOf(credits.length, accountNumber, run)
          credits.push(next)
          const delivery = CreditStream.sendCredit(port, next, requestId)
          outcomes.push(yield* answered(requestId, "webhook", next.reference, delivery))
        })
      )

      // The killer: each time, every other backend on this database, as an operator (or a
      // failover) would. `state` is read at the kill: `active` or `idle in transaction` had work.
      const started = Date.now()
      const kills: Array<{ readonly killed: number; readonly busy: number }> = []
      for (const at of KILLS_AT_MS) {
        yield* Effect.sleep(`${Math.max(0, started + at - Date.now())} millis`)
        const rows = yield* direct<{ terminated: boolean; state: string | null }>`
          SELECT pg_terminate_backend(pid) AS terminated, state FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()`
        const killed = rows.filter((row) => row.terminated)
        kills.push({ killed: killed.length, busy: killed.filter((row) => row.state !== "idle").length })
      }
      yield* Effect.sleep(`${Math.max(0, started + LOAD_MS - Date.now())} millis`)
      yield* stopLoad

      assert.isTrue(
        kills.every((kill) => kill.killed > 0),
        `every kill found connections: ${JSON.stringify(kills)}`
      )
      // Units of work lost their connection mid-way and were run again (the server says so, at
      // INFO), and a retried one was acknowledged: without the retry it would have been a 503. A
      // credit is an idempotent unit (one statement, no transaction); a wallet read is neither.
      const retried = new Set(
        server
          .stdout()
          .split("\n")
          .filter(
            (line) =>
              line.includes("running the transaction again") || line.includes("running the idempotent unit again")
          )
          .map((line) => JSON.parse(line).annotations?.requestId as string)
      )
      assert.isAbove(retried.size, 0, `no transaction was retried; kills: ${JSON.stringify(kills)}`)
      const retriedAndAcknowledged = outcomes.filter((o) => retried.has(o.requestId) && o.status === 200)
      assert.isAbove(retriedAndAcknowledged.length, 0, "a retried transaction answered 200")

      // Every request answered: 200, or a clean 503 with Retry-After; never a 500.
      for (const o of outcomes) assert.isNumber(o.status, `no answer (${o.status}) for ${o.requestId}`)
      const statuses: Record<string, number> = {}
      for (const o of outcomes) statuses[`${o.kind} ${o.status}`] = (statuses[`${o.kind} ${o.status}`] ?? 0) + 1
      for (const o of outcomes.filter((o) => o.status !== 200)) assertCleanFailure(o)
      const log = assertOutageLogged(server.stdout() + server.stderr(), outcomes)

      // Every acknowledged credit is in the ledger exactly once, and nothing else is, unless a
      // COMMIT whose reply was lost committed (answered 503: the provider's redelivery is then a
      // duplicate).
      const references = credits.map((c) => c.reference)
      const acknowledged = new Set(
        outcomes.filter((o) => o.kind === "webhook" && o.status === 200).map((o) => o.reference)
      )
      const stored = yield* CreditStream.storedOutcomes(direct, references)
      for (const reference of acknowledged) assert.strictEqual(stored.get(reference as string), "processed", reference)
      const committedUnacknowledged = credits.filter((c) => stored.has(c.reference) && !acknowledged.has(c.reference))
      const sum = (list: ReadonlyArray<Credit>) => list.reduce((total, c) => total + c.settledMinor, 0n)
      const acknowledgedMinor = sum(credits.filter((c) => acknowledged.has(c.reference)))
      assert.strictEqual(
        yield* CreditStream.ledgerBalance(direct, userAccount),
        (acknowledgedMinor + sum(committedUnacknowledged)).toString(),
        "ledger = the acknowledged credits (plus any committed whose answer was lost)"
      )

      // The provider redelivers what it has no 200 for; then every credit is there, once.
      const unacknowledged = credits.filter((c) => !acknowledged.has(c.reference))
      const redelivered = yield* Effect.forEach(
        unacknowledged,
        (c) => Effect.map(deliver(port, c.body), (answer) => answer.status),
        { concurrency: CONCURRENCY }
      )
      assert.deepStrictEqual(
        redelivered,
        unacknowledged.map(() => 200)
      )
      const totalMinor = sum(credits)
      assert.strictEqual(yield* ngnBalance(port, userId, token), formatMinor(totalMinor))
      const postings = yield* CreditStream.creditPostings(direct, references, userAccount)
      assert.strictEqual(postings.length, credits.length, "one posting per credit")
      assert.strictEqual(yield* CreditStream.ledgerBalance(direct, userAccount), totalMinor.toString())

      CreditStream.logFigures("terminate", testStarted, {
        concurrency: CONCURRENCY,
        kills,
        requests: outcomes.length,
        statuses,
        transactionsRetried: retried.size,
        retriedThenAcknowledged: retriedAndAcknowledged.length,
        warnLogLines: log.warnings,
        creditsSent: credits.length,
        creditsAcknowledged: acknowledged.size,
        committedButUnacknowledged: committedUnacknowledged.length
      })
    })
)
