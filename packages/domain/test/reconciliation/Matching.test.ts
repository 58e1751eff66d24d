import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, Result, Schema } from "effect"
import { judgeLine, type StoredEventFacts } from "../../src/reconciliation/Matching.ts"
import { SettlementDate } from "../../src/reconciliation/Model.ts"
import { readHeader, readLine } from "../../src/reconciliation/ReportLine.ts"

const decimal = (text: string) => BigDecimal.fromStringUnsafe(text)
const HEADER = ["reference", "kind", "amount", "fee", "settled_amount", "currency", "account_number", "settled_at"]
const line = (values: ReadonlyArray<string>) =>
  Result.getOrThrow(readLine(Result.getOrThrow(readHeader(HEADER)), 2, values))

const creditLine = line([
  "VA-1",
  "virtualaccount.credit",
  "5000.5",
  "50",
  "4950.5",
  "NGN",
  "9900112233",
  "2026-11-21T18:30:00Z"
])
const transferLine = line(["T-1", "transfer.success", "2500", "", "", "NGN", "", "2026-11-21T09:00:00Z"])

const stored = (overrides: Partial<StoredEventFacts> = {}): StoredEventFacts => ({
  eventId: "e-1",
  outcome: "processed",
  amount: decimal("5000.50"),
  settledAmount: decimal("4950.50"),
  currency: "NGN",
  accountNumber: "9900112233",
  ...overrides
})

describe("judging a report line against its stored event", () => {
  it("matches an applied event with the same values, compared as decimals", () => {
    assert.deepStrictEqual(judgeLine(creditLine, stored()), { _tag: "matched" })
    assert.deepStrictEqual(
      judgeLine(transferLine, stored({ amount: decimal("2500.00"), settledAmount: null, accountNumber: null })),
      { _tag: "matched" }
    )
  })

  it("names every value that differs on an applied event", () => {
    assert.deepStrictEqual(
      judgeLine(creditLine, stored({ amount: decimal("5000"), accountNumber: "1111111111", currency: "USD" })),
      {
        _tag: "amount_mismatch",
        differences: [
          "amount: report 5000.5, ledger 5000",
          "currency: report NGN, ledger USD",
          "account_number: report 9900112233, ledger 1111111111"
        ]
      }
    )
    assert.deepStrictEqual(judgeLine(creditLine, stored({ settledAmount: decimal("4950") })), {
      _tag: "amount_mismatch",
      differences: ["settled_amount: report 4950.5, ledger 4950"]
    })
  })

  it("a transfer is not judged on a credit's fields", () => {
    assert.deepStrictEqual(
      judgeLine(transferLine, stored({ amount: decimal("2500"), settledAmount: decimal("1"), accountNumber: "x" })),
      { _tag: "matched" }
    )
  })

  it("an event stored but not applied is a status mismatch; none at all is missing in the ledger", () => {
    for (const outcome of ["unmatched", "rejected", "conflict", "ignored"] as const) {
      assert.deepStrictEqual(judgeLine(creditLine, stored({ outcome })), { _tag: "status_mismatch", outcome })
    }
    assert.deepStrictEqual(judgeLine(creditLine, undefined), { _tag: "missing_in_ledger" })
  })
})

describe("the settlement date", () => {
  it("is a calendar date that exists", () => {
    const valid = Schema.is(SettlementDate)
    assert.isTrue(valid("2026-11-21"))
    assert.isTrue(valid("2028-02-29"))
    for (const bad of ["2026-02-30", "2026-13-01", "2026-1-01", "2026-11-21T00:00:00Z", ""])
      assert.isFalse(valid(bad), bad)
  })
})
