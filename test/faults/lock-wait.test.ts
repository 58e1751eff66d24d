import { assert } from "@effect/vitest"
import { unique } from "@payments-gaming/domain/test/support/fixtures"
import { Effect, Fiber } from "effect"
import { tempDir } from "../support/NodeProcess.ts"
import { deliver, formatMinor, ngnBalance, send, startServer } from "../support/ServerProcess.ts"
import * as CreditStream from "./CreditStream.ts"
import { assertCleanFailure, assertOutageLogged } from "./OutageAssertions.ts"

// A row held by someone else (an operator's open transaction in psql) while the server pipelines
// statements (the default): the statement waiting on it gives up after lock_timeout
// (PostgresClient.PIPELINED_SESSION) with a 503 long before the 15 s deadline, and the other users'
// requests, some of them queued behind it on its connection, are answered.
CreditStream.faultTest(
  "fault: a row held by another session",
  "the request waiting on it answers 503 after the lock timeout; everyone else is answered; nothing is lost",
  30_000,
  ({ url, direct, started: testStarted }) =>
    Effect.gen(function* () {
      const { server, port } = yield* startServer({
        DATABASE_URL: url,
        DATA_DIR: yield* tempDir("faults-lock-"),
        RATE_LIMIT_PER_IP: "0",
        RATE_LIMIT_PER_USER: "0",
        LOG_FORMAT: "json"
      })
      const held = yield* CreditStream.linkedUser(port, "lock-held")
      const other = yield* CreditStream.linkedUser(port, "lock-other")
      const run = unique("VA-LOCK")
      const creditOf = (index: number, accountNumber: string) =>
        CreditStream.makeCredit({ index, accountNumber, run, amountMinor: 50_000n + BigInt(index), feeMinor: 0n })
      // The first credit opens the held user's account row.
      const opening = creditOf(0, held.accountNumber)
      assert.strictEqual((yield* deliver(port, opening.body)).status, 200)

      const blocked = creditOf(1, held.accountNumber)
      const others = Array.from({ length: 6 }, (_, i) => creditOf(2 + i, other.accountNumber))
      const { answer, seconds, otherStatuses, wheelStatuses } = yield* direct.withTransaction(
        Effect.gen(function* () {
          yield* direct`SELECT id FROM ledger_accounts WHERE id = ${held.userAccount} FOR UPDATE`
          const started = Date.now()
          const waiting = yield* Effect.forkChild(CreditStream.sendCredit(port, blocked, "lock-blocked"))
          yield* Effect.sleep("100 millis")
          // Other users' credits and wheel reads while the held user's credit waits on the row.
          const otherStatuses = yield* Effect.forEach(
            others,
            (c, i) => Effect.map(CreditStream.sendCredit(port, c, `lock-other-${i}`), (a) => a.status),
            { concurrency: "unbounded" }
          )
          const wheelStatuses = yield* Effect.forEach(
            [1, 2, 3, 4],
            () =>
              Effect.map(
                send(port, "/v1/spin-and-win", { headers: { authorization: `Bearer ${other.token}` } }),
                (a) => a.status
              ),
            { concurrency: "unbounded" }
          )
          const answer = yield* Fiber.join(waiting)
          return { answer, seconds: (Date.now() - started) / 1000, otherStatuses, wheelStatuses }
        })
      )

      assert.deepStrictEqual(
        otherStatuses,
        others.map(() => 200),
        "the other user's credits"
      )
      assert.deepStrictEqual(wheelStatuses, [200, 200, 200, 200], "wheel reads")
      assertCleanFailure({ requestId: "lock-blocked", kind: "webhook", ...answer })
      // The lock timeout (2 s) ended the wait, not the request deadline (15 s).
      assert.isBelow(seconds, 10, `answered after ${seconds} s`)
      assertOutageLogged(server.stdout() + server.stderr(), [{ requestId: "lock-blocked", kind: "webhook", ...answer }])

      // Nothing of the refused credit was kept; the provider's redelivery, once the row is free, credits it once.
      const stored = yield* CreditStream.storedOutcomes(direct, [blocked.reference])
      assert.isFalse(stored.has(blocked.reference), "the refused credit stored nothing")
      assert.strictEqual((yield* deliver(port, blocked.body)).status, 200)
      assert.strictEqual((yield* deliver(port, blocked.body)).status, 200, "a second redelivery is a duplicate")
      assert.strictEqual(
        yield* ngnBalance(port, held.userId, held.token),
        formatMinor(opening.settledMinor + blocked.settledMinor)
      )
      const sum = others.reduce((total, c) => total + c.settledMinor, 0n)
      assert.strictEqual(yield* ngnBalance(port, other.userId, other.token), formatMinor(sum))

      CreditStream.logFigures("lock-wait", testStarted, { blockedAnsweredAfterSeconds: seconds.toFixed(2) })
    })
)
