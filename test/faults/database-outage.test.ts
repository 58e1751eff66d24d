import { assert } from "@effect/vitest"
import { unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect, Fiber } from "effect"
import { tempDir } from "../support/NodeProcess.ts"
import {
  type Delivered,
  deliver,
  formatMinor,
  type NoAnswer,
  ngnBalance,
  send,
  startServer
} from "../support/ServerProcess.ts"
import { tcpProxy } from "../support/TcpProxy.ts"
import type { Credit } from "./CreditStream.ts"
import * as CreditStream from "./CreditStream.ts"
import { assertCleanFailure, assertOutageLogged, ENVELOPE_KEYS } from "./OutageAssertions.ts"

const CONCURRENCY = 8
const WARM_UP_MS = 2_000
const OUTAGE_MS = 3_000
/** Load keeps running this long after readiness is back, to show the service serves again. */
const AFTER_RECOVERY_MS = 3_000
/**
 * No request may take longer than this, outage or not. With the path cut, a connection attempt is
 * refused at once and a proxied socket is destroyed, so a query fails within milliseconds; the
 * slowest legitimate wait is the driver's connect timeout (PgConnection's default, 5 s), which a
 * refused connection never reaches. Anything slower is a hang.
 */
const REQUEST_BOUND_MS = 5_000
const READINESS_POLL_MS = 100

type Kind = "webhook" | "wallet" | "wheel"

interface Outcome {
  readonly requestId: string
  readonly kind: Kind
  readonly reference: string | undefined
  readonly started: number
  readonly ended: number
  /** The HTTP status, or the socket error when no answer came (ECONNRESET, ECONNREFUSED). */
  readonly status: number | string
  readonly text: string
  readonly retryAfter: string | undefined
}

/** Credit i: its own reference, an amount with cents and, on two thirds of them, a fee. */
const makeCreditOf = (i: number, accountNumber: string, run: string): Credit =>
  CreditStream.makeCredit({
    index: i,
    accountNumber,
    run,
    amountMinor: 5_000n + BigInt(i) * 97n + BigInt((i * 31) % 100),
    feeMinor: i % 3 === 0 ? 0n : 15n
  })

const answered = (answer: Effect.Effect<Delivered, NoAnswer>) =>
  answer.pipe(
    Effect.map((delivered) => ({
      status: delivered.status as number | string,
      text: delivered.text,
      retryAfter: delivered.retryAfter
    })),
    Effect.catch((error: NoAnswer) =>
      Effect.succeed({ status: error.code as number | string, text: "", retryAfter: undefined as string | undefined })
    )
  )

const countBy = (labels: ReadonlyArray<string>) => {
  const counts: Record<string, number> = {}
  for (const label of labels) counts[label] = (counts[label] ?? 0) + 1
  return counts
}

const tally = (outcomes: ReadonlyArray<Outcome>) => countBy(outcomes.map((o) => `${o.kind} ${o.status}`))

// The outage is a cut network path between the server process and its database, which only exists
// with a real PostgreSQL server: the embedded PGlite runs inside the server process, with no
// separable connection to sever. CI sets CI=true, which fails the run when PostgreSQL is missing,
// so there this always runs.
CreditStream.faultTest(
  "fault: the database becomes unreachable under load",
  "readiness turns 503 and back, requests fail cleanly, the service recovers by itself, no acknowledged credit is lost",
  60_000,
  ({ url, direct, started: testStarted }) =>
    Effect.gen(function* () {
      const database = new URL(url)
      const proxy = yield* tcpProxy({ host: database.hostname, port: Number(database.port || 5432) })
      const proxied = new URL(url)
      proxied.port = String(proxy.port)
      const { server, port } = yield* startServer({
        DATABASE_URL: proxied.toString(),
        DATA_DIR: yield* tempDir("faults-outage-"),
        // This measures database faults: the load comes from one address and one user, which the
        // rate limiters would rightly answer with 429s, hiding what the database path does.
        RATE_LIMIT_PER_IP: "0",
        RATE_LIMIT_PER_USER: "0",
        // JSON lines, as in production, so the test can find each failure's logged cause.
        LOG_FORMAT: "json"
      })

      const { userId, accountNumber, userAccount, token } = yield* CreditStream.linkedUser(port, "outage-user")
      const bearer = { authorization: `Bearer ${token}` }
      const run = unique("VA-OUTAGE")
      const credits: Array<Credit> = []

      // The load: CONCURRENCY workers, each sending half credits (every one new, as a provider's
      // stream of deposits) and half reads of the wallet and the wheel, until told to stop.
      const outcomes: Array<Outcome> = []
      const load = (n: number) =>
        Effect.gen(function* () {
          const kind: Kind = n % 4 < 2 ? "webhook" : n % 4 === 2 ? "wallet" : "wheel"
          const started = Date.now()
          const requestId = `outage-${n}`
          let reference: string | undefined
          let request: Effect.Effect<Delivered, NoAnswer>
          if (kind === "webhook") {
            const next = makeCreditOf(credits.length, accountNumber, run)
            credits.push(next)
            reference = next.reference
            request = CreditStream.sendCredit(port, next, requestId)
          } else {
            const path = kind === "wallet" ? "/v1/wallet" : "/v1/spin-and-win"
            request = send(port, path, { headers: { ...bearer, "x-request-id": requestId } })
          }
          const { status, text, retryAfter } = yield* answered(request)
          outcomes.push({ requestId, kind, reference, started, ended: Date.now(), status, text, retryAfter })
          // A failed request comes back at once; a short pause keeps a worker from spinning on them.
          if (status !== 200) yield* Effect.sleep("20 millis")
        })

      // Readiness, probed all along on its own connection.
      const probes: Array<{ readonly at: number; readonly status: number | string; readonly text: string }> = []
      let probing = true
      const prober = Effect.gen(function* () {
        while (probing) {
          const { status, text } = yield* answered(send(port, "/readyz"))
          probes.push({ at: Date.now(), status, text })
          yield* Effect.sleep(`${READINESS_POLL_MS} millis`)
        }
      })

      const proberFiber = yield* Effect.forkChild(prober)
      const stopLoad = yield* CreditStream.startLoad(CONCURRENCY, load)

      yield* Effect.sleep(`${WARM_UP_MS} millis`)
      const openBeforeCut = proxy.open()
      const cutAt = Date.now()
      yield* proxy.cut
      yield* Effect.sleep(`${OUTAGE_MS} millis`)
      const restoredAt = Date.now()
      yield* proxy.restore

      // Readiness must come back by itself: the server is never restarted.
      let readyAgainAt: number | undefined
      while (readyAgainAt === undefined && Date.now() - restoredAt < 20_000) {
        const back = probes.find((p) => p.at > restoredAt && p.status === 200)
        if (back !== undefined) readyAgainAt = back.at
        else yield* Effect.sleep("50 millis")
      }
      assert.isDefined(readyAgainAt, "readiness never returned to 200 after the database came back")
      const recoveredAt = readyAgainAt as number
      yield* Effect.sleep(`${AFTER_RECOVERY_MS} millis`)
      yield* stopLoad
      probing = false
      yield* Fiber.join(proberFiber)

      // Readiness: 200 before, 503 with the envelope during the outage, 200 again after.
      const probesBefore = probes.filter((p) => p.at < cutAt)
      assert.isAbove(probesBefore.length, 0)
      for (const p of probesBefore) assert.strictEqual(p.status, 200, p.text)
      const probesDuring = probes.filter((p) => p.at > cutAt + 500 && p.at < restoredAt)
      assert.isAtLeast(probesDuring.length, 3, "readiness was probed during the outage")
      for (const p of probesDuring) {
        assert.strictEqual(p.status, 503, p.text)
        // biome-ignore lint/suspicious/noExplicitAny: the body is inspected as arbitrary JSON
        const json: any = JSON.parse(p.text)
        assert.deepStrictEqual(Object.keys(json), ENVELOPE_KEYS)
        assert.strictEqual(json.status, 503)
        assert.strictEqual(json.success, false)
        assert.isNull(json.data)
      }
      for (const p of probes.filter((p) => p.at > recoveredAt)) assert.strictEqual(p.status, 200, p.text)

      // Every request got an answer, within the bound; before the cut all of them succeeded.
      const slowest = Math.max(...outcomes.map((o) => o.ended - o.started))
      for (const o of outcomes) {
        assert.isNumber(o.status, `no answer (${o.status}) for a ${o.kind} request`)
        assert.isAtMost(o.ended - o.started, REQUEST_BOUND_MS, `${o.kind} took ${o.ended - o.started} ms`)
      }
      const before = outcomes.filter((o) => o.ended < cutAt)
      assert.isAtLeast(before.length, 10, "the load was running before the cut")
      assert.deepStrictEqual(tally(before.filter((o) => o.status !== 200)), {}, "before the cut all succeed")

      // During the outage (in flight at the cut, or started before the restore): 200 for what
      // finished before the cut took effect, else a clean 503 with Retry-After.
      const during = outcomes.filter((o) => o.ended >= cutAt && o.started < restoredAt)
      const failedDuring = during.filter((o) => o.status !== 200)
      assert.isAbove(failedDuring.length, 0, "the outage was felt")
      for (const o of during.filter((o) => o.status !== 200)) assertCleanFailure(o)
      for (const kind of ["webhook", "wallet", "wheel"] as const) {
        assert.isTrue(
          failedDuring.some((o) => o.kind === kind),
          `a ${kind} request failed during the outage`
        )
      }

      // After readiness is back every new request succeeds, on the same process.
      const after = outcomes.filter((o) => o.started > recoveredAt)
      assert.isAtLeast(after.length, 10, "the load ran after the recovery")
      assert.deepStrictEqual(tally(after.filter((o) => o.status !== 200)), {}, "after recovery all succeed")
      // Between the restore and readiness: whatever failed there failed cleanly too.
      for (const o of outcomes.filter((o) => o.started >= restoredAt && o.status !== 200)) assertCleanFailure(o)

      // No acknowledged credit lost: each one is stored once, processed, and credited once. Some
      // unacknowledged ones may have committed (cut between the commit and its reply).
      const webhooks = outcomes.filter((o) => o.kind === "webhook")
      const acknowledged = new Set(webhooks.filter((o) => o.status === 200).map((o) => o.reference))
      const references = credits.map((c) => c.reference)
      const stored = yield* CreditStream.storedOutcomes(direct, references)
      for (const reference of acknowledged) assert.strictEqual(stored.get(reference as string), "processed", reference)
      const committedUnacknowledged = credits.filter((c) => stored.has(c.reference) && !acknowledged.has(c.reference))
      const storedMinor = credits.filter((c) => stored.has(c.reference)).reduce((sum, c) => sum + c.settledMinor, 0n)
      const acknowledgedMinor = credits
        .filter((c) => acknowledged.has(c.reference))
        .reduce((sum, c) => sum + c.settledMinor, 0n)
      assert.strictEqual(
        yield* CreditStream.ledgerBalance(direct, userAccount),
        storedMinor.toString(),
        "balance = sum of the stored credits"
      )
      if (committedUnacknowledged.length === 0) assert.strictEqual(storedMinor, acknowledgedMinor)

      // The provider redelivers what it has no 200 for; then everything is there, once.
      const unacknowledged = credits.filter((c) => !acknowledged.has(c.reference))
      const redelivered = yield* Effect.forEach(unacknowledged, (c) => answered(deliver(port, c.body)), {
        concurrency: CONCURRENCY
      })
      assert.deepStrictEqual(
        redelivered.map((r) => r.status),
        unacknowledged.map(() => 200)
      )

      const totalMinor = credits.reduce((sum, c) => sum + c.settledMinor, 0n)
      assert.strictEqual(yield* ngnBalance(port, userId, token), formatMinor(totalMinor))
      assert.strictEqual(yield* CreditStream.ledgerBalance(direct, userAccount), totalMinor.toString())
      const events = yield* CreditStream.outcomeCounts(direct, references)
      assert.deepStrictEqual(events, [{ outcome: "processed", count: String(credits.length) }])
      const postings = yield* CreditStream.creditPostings(direct, references, userAccount)
      assert.strictEqual(postings.length, credits.length, "one credit per delivery")
      const credited = new Map(postings.map((row) => [row.key, row.amount]))
      for (const c of credits) {
        assert.strictEqual(credited.get(`virtualaccount.credit:${c.reference}`), c.settledMinor.toString())
      }

      // An outage is no bug: no 500 at all, no "Unhandled failure", and each 503 logged once, as a
      // warning without a stack, under the request id the client sent.
      assert.deepStrictEqual(tally(outcomes.filter((o) => o.status === 500)), {}, "no 500")
      const log = assertOutageLogged(server.stdout() + server.stderr(), outcomes)

      // A stop after the outage is still clean: in-flight work done, pool closed, exit 0.
      yield* server.kill("SIGTERM")
      assert.deepStrictEqual(yield* server.exit(25_000), { code: 0, signal: null }, server.stderr())

      const figures = {
        concurrency: CONCURRENCY,
        requests: outcomes.length,
        openDatabaseConnectionsAtCut: openBeforeCut,
        outageMs: restoredAt - cutAt,
        requestsDuringOutage: during.length,
        statusesDuringOutage: tally(during),
        readinessDuringOutage: countBy(probesDuring.map((p) => `readyz ${p.status}`)),
        msFromRestoreToReady: recoveredAt - restoredAt,
        requestsAfterRecovery: after.length,
        slowestRequestMs: slowest,
        slowestDuringOutageMs: Math.max(0, ...during.map((o) => o.ended - o.started)),
        creditsSent: credits.length,
        creditsAcknowledged: acknowledged.size,
        creditsUnacknowledged: unacknowledged.length,
        committedButUnacknowledged: committedUnacknowledged.length,
        warnLogLines: log.warnings,
        walletNGN: formatMinor(totalMinor)
      }
      CreditStream.logFigures("outage", testStarted, figures)
    })
)
