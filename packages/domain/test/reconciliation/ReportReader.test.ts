import { assert, describe, it } from "@effect/vitest"
import { makeReportReader } from "../../src/reconciliation/ReportReader.ts"

const HEADER = "reference,kind,amount,fee,settled_amount,currency,account_number,settled_at"
const credit = (reference: string, amount = "100.00") =>
  `${reference},virtualaccount.credit,${amount},0,${amount},NGN,9900112233,2026-11-21T10:00:00Z`

/** Reads `text` in chunks of `size` characters; returns the lines' references and the summary. */
const readAll = (text: string, size = 7) => {
  const reader = makeReportReader()
  const references: Array<string> = []
  for (let at = 0; at < text.length; at += size) {
    for (const line of reader.feed(text.slice(at, at + size))) references.push(`${line.line}:${line.reference}`)
  }
  const { last, ...summary } = reader.end()
  for (const line of last) references.push(`${line.line}:${line.reference}`)
  return { references, summary }
}

describe("reading a whole report", () => {
  it("returns each good line as its chunk completes it, with its line number", () => {
    const { references, summary } = readAll(
      `\uFEFF${HEADER}\r\n${credit("VA-1")}\r\n"VA,2",transfer.success,5,,,NGN,,2026-11-21T11:00:00Z\r\n`
    )
    assert.deepStrictEqual(references, ["2:VA-1", "3:VA,2"])
    assert.deepStrictEqual(summary, { lines: 2, errors: [], moreErrors: 0 })
  })

  it("returns a last line that has no line end", () => {
    const { references, summary } = readAll(`${HEADER}\n${credit("VA-1")}\n${credit("VA-2")}`)
    assert.deepStrictEqual(references, ["2:VA-1", "3:VA-2"])
    assert.strictEqual(summary.lines, 2)
  })

  it("lists the problems of every line, naming the column of a malformed field", () => {
    const { summary } = readAll(
      `${HEADER}\n${credit("VA-1", "1.001")}\n${credit("VA-2")}\nVA-3,"x"y,1,0,1,NGN,1,2026-11-21T10:00:00Z\n`
    )
    assert.deepStrictEqual(summary.errors, [
      { line: 2, column: "amount", message: "at most 2 decimals in NGN" },
      { line: 2, column: "settled_amount", message: "at most 2 decimals in NGN" },
      { line: 4, column: "kind", message: "only a comma or a line end may follow a closing quote" }
    ])
  })

  it("keeps the first hundred problems and counts the rest", () => {
    const bad = Array.from({ length: 150 }, (_, index) => credit(`VA-${index}`, "-1")).join("\n")
    const { summary } = readAll(`${HEADER}\n${bad}`, 4096)
    assert.strictEqual(summary.errors.length, 100)
    // One problem a line: its amount is not above zero.
    assert.strictEqual(summary.errors[99]?.line, 101)
    assert.strictEqual(summary.moreErrors, 50)
    assert.strictEqual(summary.lines, 150)
  })

  it("refuses an empty file and a header without its columns", () => {
    assert.deepStrictEqual(readAll("").summary.errors, [
      { line: 1, column: null, message: "the report is empty: a header line is required" }
    ])
    assert.deepStrictEqual(
      readAll(`reference,amount\n${credit("VA-1")}`).summary.errors.map((error) => error.column),
      ["kind", "currency", "settled_at"]
    )
  })
})
