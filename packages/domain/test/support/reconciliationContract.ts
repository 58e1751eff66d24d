import { createHash } from "node:crypto"
import { assert, type Vitest } from "@effect/vitest"
import type { UserId } from "@payments-gaming/domain/auth"
import { BankingService, type VirtualAccounts, WebhookInbox } from "@payments-gaming/domain/banking"
import type { Ledger, UnitOfWork } from "@payments-gaming/domain/ledger"
import {
  type BreakKind,
  type BreakView,
  ReconciliationService,
  type ResolveAction
} from "@payments-gaming/domain/reconciliation"
import { Clock, Effect, Option } from "effect"
import { cash, linkedUser, receive } from "./bankingContract.ts"
import { credit, unique } from "./fixtures.ts"

export type ReconciliationContext =
  | ReconciliationService
  | BankingService
  | WebhookInbox
  | Ledger
  | UnitOfWork
  | VirtualAccounts

type It = Vitest.MethodsNonLive<ReconciliationContext>

export const HEADER = "reference,kind,amount,fee,settled_amount,currency,account_number,settled_at"

/** A credit line of a report. */
export const creditLine = (o: {
  readonly reference: string
  readonly accountNumber: string
  readonly amount: string
  readonly fee?: string
  readonly settled?: string
  readonly day: string
}) =>
  `${o.reference},virtualaccount.credit,${o.amount},${o.fee ?? "0"},${o.settled ?? o.amount},NGN,${o.accountNumber},${o.day}T10:00:00Z`

export const report = (lines: ReadonlyArray<string>) => new TextEncoder().encode(`${HEADER}\n${lines.join("\n")}\n`)

export const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

export const importReport = (date: string, bytes: Uint8Array) =>
  Effect.flatMap(Effect.service(ReconciliationService), (service) =>
    service.import({ date, bytes, sha256: sha256(bytes) })
  )

let days = 0
/** A settlement day of its own per test (long past), so each test's missing_in_report are its own. */
export const freshDay = () => {
  const at = new Date(Date.UTC(2020, 0, 1) + (Math.floor(Math.random() * 50) * 40 + days++) * 86_400_000)
  return at.toISOString().slice(0, 10)
}

/** A credit webhook dated on `day`, received now. */
export const creditOn = (day: string, o: { reference: string; accountNumber: string; amount: string; fee?: string }) =>
  receive(
    credit({
      reference: o.reference,
      accountNumber: o.accountNumber,
      amount: o.amount,
      fee: o.fee ?? "0",
      settled: (Number(o.amount) - Number(o.fee ?? "0")).toFixed(2),
      data: { date: `${day}T09:00:00.123456Z` }
    })
  )

export const allBreaks = (id: string, filter: { kind?: BreakKind; status?: "open" | "resolved" } = {}) =>
  Effect.gen(function* () {
    const service = yield* ReconciliationService
    const items: Array<BreakView> = []
    let after: number | undefined
    for (;;) {
      const page = yield* service.breaks(id, { ...filter, after, limit: 2 })
      items.push(...page.items)
      if (page.next === null) return items
      after = page.next
    }
  })

export const resolve = (reconciliationId: string, breakId: string, action: ResolveAction, by = "operator-1") =>
  Effect.flatMap(Effect.service(ReconciliationService), (service) =>
    service.resolve({ reconciliationId, breakId, action, note: `${action} after checking the bank`, by })
  )

/** A day with one break of every kind, one matched line, and the user whose account they name. */
export const everyKind = Effect.gen(function* () {
  const day = freshDay()
  const { userId, accountNumber } = yield* linkedUser
  const matched = unique("m")
  const mismatch = unique("am")
  const unmatched = unique("sm")
  const missing = unique("mil")
  const extra = unique("mir")
  assert.strictEqual(
    (yield* creditOn(day, { reference: matched, accountNumber, amount: "100.50", fee: "0.50" })).outcome,
    "processed"
  )
  assert.strictEqual(
    (yield* creditOn(day, { reference: mismatch, accountNumber, amount: "150.00" })).outcome,
    "processed"
  )
  assert.strictEqual(
    (yield* creditOn(day, { reference: unmatched, accountNumber: unique("nobody"), amount: "10.00" })).outcome,
    "unmatched"
  )
  assert.strictEqual((yield* creditOn(day, { reference: extra, accountNumber, amount: "7.00" })).outcome, "processed")
  const bytes = report([
    // "100.5" is "100.50": compared as decimals.
    creditLine({ reference: matched, accountNumber, amount: "100.5", fee: "0.5", settled: "100", day }),
    creditLine({ reference: mismatch, accountNumber, amount: "200.00", day }),
    creditLine({ reference: unmatched, accountNumber, amount: "10.00", day }),
    creditLine({ reference: missing, accountNumber, amount: "25.00", fee: "1.00", settled: "24.00", day })
  ])
  return { day, userId, accountNumber, bytes, references: { matched, mismatch, unmatched, missing, extra } }
})

const failureTag = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => error._tag)

/** CONTRACT §7's use case, the same on memory ports and on PostgreSQL. */
export const reconciliationContract = (it: It) => {
  it.effect("an import lists one break of every kind, with the line and the event each names", () =>
    Effect.gen(function* () {
      const { day, accountNumber, bytes, references } = yield* everyKind
      const { created, reconciliation } = yield* importReport(day, bytes)
      assert.isTrue(created)
      assert.strictEqual(reconciliation.date, day)
      assert.strictEqual(reconciliation.sha256, sha256(bytes))
      assert.deepStrictEqual([reconciliation.lines, reconciliation.matched], [4, 1])
      assert.deepStrictEqual(reconciliation.breaks, {
        open: 4,
        resolved: 0,
        byKind: { missing_in_ledger: 1, missing_in_report: 1, amount_mismatch: 1, status_mismatch: 1 }
      })
      const breaks = yield* allBreaks(reconciliation.id)
      assert.deepStrictEqual(
        breaks.map((b) => [b.kind, b.reference, b.eventKind, b.status]),
        [
          ["amount_mismatch", references.mismatch, "virtualaccount.credit", "open"],
          ["status_mismatch", references.unmatched, "virtualaccount.credit", "open"],
          ["missing_in_ledger", references.missing, "virtualaccount.credit", "open"],
          ["missing_in_report", references.extra, "virtualaccount.credit", "open"]
        ]
      )
      const [mismatch, unmatched, missing, extra] = breaks
      assert.deepStrictEqual(mismatch?.report, {
        line: 3,
        amount: "200.00",
        fee: "0.00",
        settledAmount: "200.00",
        currency: "NGN",
        accountNumber,
        settledAt: `${day}T10:00:00.000Z`
      })
      assert.deepStrictEqual(
        { ...mismatch?.ledger, eventId: "" },
        { eventId: "", outcome: "processed", amount: "150.00", settledAmount: "150.00", currency: "NGN", accountNumber }
      )
      assert.strictEqual(unmatched?.ledger?.outcome, "unmatched")
      assert.isNull(missing?.ledger)
      assert.strictEqual(missing?.report?.settledAmount, "24.00")
      assert.isNull(extra?.report)
      assert.strictEqual(extra?.ledger?.amount, "7.00")
      assert.isNull(extra?.resolution)
      const service = yield* ReconciliationService
      assert.deepStrictEqual(yield* service.get(reconciliation.id), reconciliation)
      assert.deepStrictEqual(
        (yield* allBreaks(reconciliation.id, { kind: "missing_in_ledger" })).map((b) => b.reference),
        [references.missing]
      )
      assert.deepStrictEqual(yield* allBreaks(reconciliation.id, { status: "resolved" }), [])
    })
  )

  it.effect("the same bytes for the same date again answer the first reconciliation; another date is another", () =>
    Effect.gen(function* () {
      const { day, bytes } = yield* everyKind
      const first = yield* importReport(day, bytes)
      const again = yield* importReport(day, bytes)
      assert.isFalse(again.created)
      assert.deepStrictEqual(again.reconciliation, first.reconciliation)
      assert.strictEqual((yield* allBreaks(first.reconciliation.id)).length, 4)
      const other = yield* importReport(freshDay(), bytes)
      assert.isTrue(other.created)
      assert.notStrictEqual(other.reconciliation.id, first.reconciliation.id)
    })
  )

  it.effect("two imports of one file at once make one reconciliation", () =>
    Effect.gen(function* () {
      const { day, bytes } = yield* everyKind
      const [a, b] = yield* Effect.all([importReport(day, bytes), importReport(day, bytes)], { concurrency: 2 })
      assert.strictEqual(a.reconciliation.id, b.reconciliation.id)
      assert.deepStrictEqual([a.created, b.created].sort(), [false, true])
      assert.strictEqual((yield* allBreaks(a.reconciliation.id)).length, 4)
    })
  )

  it.effect("a bad report is refused with each problem's line and column, and nothing is stored", () =>
    Effect.gen(function* () {
      const day = freshDay()
      const service = yield* ReconciliationService
      const before = yield* service.list({ limit: 200 })
      const bytes = new TextEncoder().encode(
        `${HEADER}\nVA-1,virtualaccount.credit,10.00,0,10.00,NGN,123,${day}T10:00:00Z\n` +
          `VA-1,virtualaccount.credit,10.00,0,10.00,NGN,123,${day}T10:00:00Z\n` +
          `VA-2,virtualaccount.credit,ten,0,10.00,NGN,123,${day}T10:00:00Z\n`
      )
      const refused = yield* Effect.flip(importReport(day, bytes))
      assert.strictEqual(refused._tag, "InvalidReport")
      assert.deepStrictEqual(
        refused.errors.map((e) => [e.line, e.column]),
        [
          [3, "reference"],
          [4, "amount"]
        ]
      )
      const notText = Uint8Array.from([...new TextEncoder().encode(`${HEADER}\nVA-3,`), 0xff, 0x0a])
      const encoding = yield* Effect.flip(importReport(day, notText))
      assert.deepStrictEqual(encoding.errors, [{ line: 2, column: null, message: "not UTF-8 text" }])
      const after = yield* service.list({ limit: 200 })
      assert.deepStrictEqual(after.items, before.items)
    })
  )

  it.effect(
    "a report of more than one batch is matched whole, and a pair named again in a later batch is refused",
    () =>
      Effect.gen(function* () {
        const day = freshDay()
        const prefix = unique("many")
        const lines = Array.from({ length: 1200 }, (_, n) =>
          creditLine({ reference: `${prefix}-${n}`, accountNumber: "A1", amount: "1.00", day })
        )
        const { reconciliation } = yield* importReport(day, report(lines))
        assert.deepStrictEqual([reconciliation.lines, reconciliation.matched], [1200, 0])
        assert.strictEqual(reconciliation.breaks.byKind.missing_in_ledger, 1200)
        const service = yield* ReconciliationService
        const last = yield* service.breaks(reconciliation.id, { after: 1199, limit: 10 })
        assert.deepStrictEqual(
          last.items.map((b) => [b.reference, b.report?.line]),
          [[`${prefix}-1199`, 1201]]
        )
        // Line 1,151 names what line 2 named (a batch is 1,000 lines); so does line 1,152.
        const twice = [...lines.slice(0, 1149), lines[0]!, lines[0]!]
        const refused = yield* Effect.flip(importReport(freshDay(), report(twice)))
        assert.deepStrictEqual(refused.errors, [
          { line: 1151, column: "reference", message: "this kind and reference are named on line 2 already" },
          { line: 1152, column: "reference", message: "this kind and reference are named on line 2 already" }
        ])
      })
  )

  it.effect("accept resolves a break with the note, who and when; a second resolve is refused", () =>
    Effect.gen(function* () {
      const { day, bytes, userId } = yield* everyKind
      const { reconciliation } = yield* importReport(day, bytes)
      const [mismatch] = yield* allBreaks(reconciliation.id, { kind: "amount_mismatch" })
      const before = yield* Clock.currentTimeMillis
      const resolved = yield* resolve(reconciliation.id, mismatch!.id, "accept", "alice")
      const after = yield* Clock.currentTimeMillis
      assert.strictEqual(resolved.status, "resolved")
      assert.deepStrictEqual(
        { ...resolved.resolution, resolvedAt: "" },
        {
          action: "accept",
          note: "accept after checking the bank",
          resolvedAt: "",
          resolvedBy: "alice",
          transactionId: null
        }
      )
      const at = Date.parse(resolved.resolution!.resolvedAt)
      assert.isTrue(at >= before && at <= after)
      assert.strictEqual(yield* failureTag(resolve(reconciliation.id, mismatch!.id, "accept")), "BreakAlreadyResolved")
      const service = yield* ReconciliationService
      const now = yield* service.get(reconciliation.id)
      assert.deepStrictEqual([now.breaks.open, now.breaks.resolved], [3, 1])
      assert.deepStrictEqual(
        (yield* allBreaks(reconciliation.id, { status: "resolved" })).map((b) => b.id),
        [mismatch!.id]
      )
      assert.strictEqual(yield* cash(userId), "257.00")
      assert.strictEqual(
        yield* failureTag(resolve(reconciliation.id, "00000000-0000-4000-8000-00000000dead", "accept")),
        "BreakNotFound"
      )
      assert.strictEqual(
        yield* failureTag(service.get("00000000-0000-4000-8000-00000000dead")),
        "ReconciliationNotFound"
      )
    })
  )

  it.effect("credit pays a missed deposit once: the late webhook answers processed and credits nothing", () =>
    Effect.gen(function* () {
      const { day, bytes, userId, accountNumber, references } = yield* everyKind
      const { reconciliation } = yield* importReport(day, bytes)
      const [missing] = yield* allBreaks(reconciliation.id, { kind: "missing_in_ledger" })
      // 100.00 (matched) + 150.00 (mismatch) + 7.00 (missing_in_report) before.
      assert.strictEqual(yield* cash(userId), "257.00")
      const resolved = yield* resolve(reconciliation.id, missing!.id, "credit")
      assert.strictEqual(resolved.resolution?.transactionId, `virtualaccount.credit:${references.missing}`)
      assert.strictEqual(yield* cash(userId), "281.00")
      const late = yield* creditOn(day, { reference: references.missing, accountNumber, amount: "25.00", fee: "1.00" })
      assert.deepStrictEqual([late.outcome, late.reason], ["processed", "already credited by reconciliation"])
      const inbox = yield* WebhookInbox
      const stored = yield* inbox.find(late.eventId)
      assert.strictEqual(Option.getOrThrow(stored).reason, "already credited by reconciliation")
      assert.strictEqual(yield* cash(userId), "281.00")
      const again = yield* receive(
        credit({
          reference: references.missing,
          accountNumber,
          amount: "25.00",
          fee: "1.00",
          settled: "24.00",
          data: { date: `${day}T09:00:00.123456Z` }
        })
      )
      assert.strictEqual(again.outcome, "duplicate")
      assert.strictEqual(yield* failureTag(resolve(reconciliation.id, missing!.id, "credit")), "BreakAlreadyResolved")
      assert.strictEqual(yield* cash(userId), "281.00")
    })
  )

  it.effect("two credit resolves of one break at once credit once", () =>
    Effect.gen(function* () {
      const { day, bytes, userId } = yield* everyKind
      const { reconciliation } = yield* importReport(day, bytes)
      const [missing] = yield* allBreaks(reconciliation.id, { kind: "missing_in_ledger" })
      const outcomes = yield* Effect.all(
        [resolve(reconciliation.id, missing!.id, "credit"), resolve(reconciliation.id, missing!.id, "credit")].map(
          (attempt) => Effect.match(attempt, { onFailure: (e) => e._tag, onSuccess: () => "resolved" })
        ),
        { concurrency: 2 }
      )
      assert.deepStrictEqual(outcomes.sort(), ["BreakAlreadyResolved", "resolved"])
      assert.strictEqual(yield* cash(userId), "281.00")
    })
  )

  it.effect(
    "credit is refused, changing nothing, for any other break, an unknown or other-currency account, or a reference received since",
    () =>
      Effect.gen(function* () {
        const { day, userId, accountNumber } = yield* everyKind
        const unknown = unique("mil")
        const dollars = unique("mil")
        const arrived = unique("mil")
        const usd = unique("VA-USD")
        const banking = yield* BankingService
        yield* banking.linkVirtualAccount(usd, { userId: unique("user") as UserId, currency: "USD" })
        const bytes = report([
          creditLine({ reference: unique("am"), accountNumber, amount: "5.00", day }),
          creditLine({ reference: unknown, accountNumber: unique("nobody"), amount: "5.00", day }),
          creditLine({ reference: dollars, accountNumber: usd, amount: "5.00", day }),
          creditLine({ reference: arrived, accountNumber, amount: "5.00", day })
        ])
        const { reconciliation } = yield* importReport(day, bytes)
        const breaks = yield* allBreaks(reconciliation.id, { kind: "missing_in_ledger" })
        assert.strictEqual(breaks.length, 4)
        yield* creditOn(day, { reference: arrived, accountNumber, amount: "5.00" })
        const walletBefore = yield* cash(userId)
        for (const one of breaks.filter((b) => b.reference !== breaks[0]!.reference)) {
          assert.strictEqual(yield* failureTag(resolve(reconciliation.id, one.id, "credit")), "CreditRefused")
        }
        const [notMissing] = yield* allBreaks(reconciliation.id, { kind: "missing_in_report" })
        assert.strictEqual(yield* failureTag(resolve(reconciliation.id, notMissing!.id, "credit")), "CreditRefused")
        assert.strictEqual(yield* cash(userId), walletBefore)
        // Its four lines, and the three applied events of the day it does not name.
        assert.strictEqual((yield* allBreaks(reconciliation.id, { status: "open" })).length, 7)
      })
  )

  it.effect("lists reconciliations newest first, a page at a time", () =>
    Effect.gen(function* () {
      const service = yield* ReconciliationService
      const day = freshDay()
      const first = yield* importReport(
        day,
        report([creditLine({ reference: unique("x"), accountNumber: "A1", amount: "1.00", day })])
      )
      const second = yield* importReport(
        day,
        report([creditLine({ reference: unique("x"), accountNumber: "A1", amount: "1.00", day })])
      )
      const page = yield* service.list({ limit: 1 })
      assert.strictEqual(page.items.length, 1)
      assert.isNotNull(page.next)
      const seen: Array<string> = []
      let after = undefined as Parameters<typeof service.list>[0]["after"]
      for (;;) {
        const next = yield* service.list({ after, limit: 1 })
        seen.push(...next.items.map((r) => r.id))
        if (next.next === null) break
        after = next.next
      }
      assert.include(seen, first.reconciliation.id)
      assert.include(seen, second.reconciliation.id)
      assert.strictEqual(new Set(seen).size, seen.length)
    })
  )
}
