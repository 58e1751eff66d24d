import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, Result } from "effect"
import { type ReportHeader, readHeader, readLine, readUtcInstant } from "../../src/reconciliation/ReportLine.ts"

const HEADER = ["reference", "kind", "amount", "fee", "settled_amount", "currency", "account_number", "settled_at"]

const header = (names: ReadonlyArray<string> = HEADER): ReportHeader => Result.getOrThrow(readHeader(names))

/** A credit line in the standard header's order, with `overrides` by column. */
const credit = (overrides: Partial<Record<string, string>> = {}) => {
  const values: Record<string, string> = {
    reference: "VA-1",
    kind: "virtualaccount.credit",
    amount: "5000.50",
    fee: "50",
    settled_amount: "4950.50",
    currency: "NGN",
    account_number: "9900112233",
    settled_at: "2026-11-21T18:30:00Z",
    ...overrides
  }
  return HEADER.map((name) => values[name] ?? "")
}

const errorsOf = (fields: ReadonlyArray<string>, at: ReportHeader = header()) =>
  Result.match(readLine(at, 7, fields), {
    onSuccess: () => [] as Array<string>,
    onFailure: (errors) => errors.map((error) => `${error.line}:${error.column ?? "-"} ${error.message}`)
  })

describe("the report's header", () => {
  it("matches names trimmed and in any case, in any order, and ignores unknown columns", () => {
    const read = header([" Settled_At", "narration", "CURRENCY", "amount ", "kind", "Reference"])
    assert.strictEqual(read.get("settled_at"), 0)
    assert.strictEqual(read.get("reference"), 5)
    assert.isFalse(read.has("fee"))
    assert.strictEqual(read.width, 6)
  })

  it("refuses a header missing a required column, or naming one twice, on line 1", () => {
    const refused = readHeader(["reference", "kind", "Kind", "amount", "settled_at"])
    assert.deepStrictEqual(Result.isFailure(refused) ? refused.failure : [], [
      { line: 1, column: "kind", message: "the column is named twice" },
      { line: 1, column: "currency", message: "required column missing from the header" }
    ])
  })
})

describe("a report line", () => {
  it("reads a credit exactly: amounts as decimals, the instant, the account", () => {
    const line = Result.getOrThrow(readLine(header(), 2, credit()))
    assert.strictEqual(line.line, 2)
    assert.isTrue(BigDecimal.equals(line.amount, BigDecimal.fromStringUnsafe("5000.5")))
    assert.isTrue(
      BigDecimal.equals(line.settledAmount ?? BigDecimal.fromBigInt(0n), BigDecimal.fromStringUnsafe("4950.5"))
    )
    assert.strictEqual(line.settledAt.toISOString(), "2026-11-21T18:30:00.000Z")
    assert.strictEqual(line.accountNumber, "9900112233")
  })

  it("reads a transfer line without fee, settled amount or account", () => {
    const line = Result.getOrThrow(
      readLine(header(), 3, credit({ kind: "transfer.success", fee: "", settled_amount: "", account_number: "" }))
    )
    assert.strictEqual(line.kind, "transfer.success")
    assert.isNull(line.fee)
    assert.isNull(line.settledAmount)
    assert.isNull(line.accountNumber)
  })

  it("reads a transfer line under a header that has no credit columns at all", () => {
    const narrow = header(["reference", "kind", "amount", "currency", "settled_at"])
    assert.isTrue(
      Result.isSuccess(readLine(narrow, 2, ["T-1", "transfer.failed", "100", "NGN", "2026-11-21T00:00:00Z"]))
    )
    assert.deepStrictEqual(errorsOf(["VA-2", "virtualaccount.credit", "100", "NGN", "2026-11-21T00:00:00Z"], narrow), [
      "7:fee required on a virtualaccount.credit line",
      "7:settled_amount required on a virtualaccount.credit line",
      "7:account_number required on a virtualaccount.credit line"
    ])
  })

  it("lists every problem of a line with its column", () => {
    assert.deepStrictEqual(
      errorsOf(
        credit({
          reference: "",
          kind: "refund",
          amount: "1e3",
          currency: "ngn",
          settled_at: "2026-11-21T18:30:00+01:00",
          account_number: "99 00"
        })
      ),
      [
        "7:reference expected 1 to 256 characters of well-formed text",
        "7:kind expected virtualaccount.credit, transfer.success or transfer.failed",
        "7:currency expected a supported ISO 4217 code in capitals, such as NGN",
        "7:settled_at expected an ISO 8601 UTC instant ending in Z, such as 2026-11-21T18:30:00Z",
        "7:amount expected a decimal number such as 2500.00",
        "7:account_number expected 1 to 64 letters, digits or dashes"
      ]
    )
  })

  it("holds amounts to their currency's decimals, above zero, and the settled amount to amount less fee", () => {
    assert.deepStrictEqual(errorsOf(credit({ amount: "5000.505" })), ["7:amount at most 2 decimals in NGN"])
    assert.deepStrictEqual(errorsOf(credit({ amount: "10", currency: "JPY", fee: "0", settled_amount: "10.0" })), [
      "7:settled_amount at most 0 decimals in JPY"
    ])
    assert.deepStrictEqual(errorsOf(credit({ amount: "0", fee: "0", settled_amount: "0" })), [
      "7:amount must be greater than zero"
    ])
    assert.deepStrictEqual(errorsOf(credit({ fee: "-1", settled_amount: "5001.50" })), ["7:fee must be zero or more"])
    assert.deepStrictEqual(errorsOf(credit({ settled_amount: "4950.49" })), [
      "7:settled_amount must equal amount less fee exactly"
    ])
    assert.deepStrictEqual(errorsOf(credit({ settled_amount: "4950.5" })), [])
  })

  it("refuses a line whose field count is not the header's", () => {
    assert.deepStrictEqual(errorsOf(["VA-1", "virtualaccount.credit"]), [
      "7:- expected 8 fields as in the header, found 2"
    ])
  })

  it("refuses a reference with a lone surrogate, and a settlement time that does not exist", () => {
    assert.deepStrictEqual(errorsOf(credit({ reference: "VA-\uD800", settled_at: "2026-02-30T00:00:00Z" })), [
      "7:reference expected 1 to 256 characters of well-formed text",
      "7:settled_at expected an ISO 8601 UTC instant ending in Z, such as 2026-11-21T18:30:00Z"
    ])
  })
})

describe("a settlement instant", () => {
  it("is UTC, ends in Z, and exists", () => {
    assert.strictEqual(readUtcInstant("2026-11-21T18:30:00Z")?.toISOString(), "2026-11-21T18:30:00.000Z")
    assert.strictEqual(readUtcInstant("2028-02-29T23:59:59.123456Z")?.toISOString(), "2028-02-29T23:59:59.123Z")
    for (const bad of [
      "2026-11-21T24:00:00Z",
      "2027-02-29T00:00:00Z",
      "2026-11-21T18:30:00",
      "2026-11-21T18:30:00+00:00",
      "2026-11-21 18:30:00Z",
      "2026-11-21T18:30:60Z",
      "2026-11-21t18:30:00z"
    ]) {
      assert.isUndefined(readUtcInstant(bad), bad)
    }
  })
})
