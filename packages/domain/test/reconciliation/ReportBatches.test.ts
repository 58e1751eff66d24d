import { assert, describe, it } from "@effect/vitest"
import { reportBatches } from "../../src/reconciliation/ReportBatches.ts"

const HEADER = "reference,kind,amount,fee,settled_amount,currency,account_number,settled_at"
const line = (reference: string) => `${reference},virtualaccount.credit,1.00,0,1.00,NGN,9900112233,2026-11-21T10:00:00Z`

const readAll = (bytes: Uint8Array, size: number) => {
  const batches = reportBatches(bytes, size)
  const sizes: Array<number> = []
  const references: Array<string> = []
  for (;;) {
    const next = batches.next()
    if (next.done === true) return { sizes, references, summary: next.value }
    sizes.push(next.value.length)
    references.push(...next.value.map((one) => one.reference))
  }
}

describe("a report's bytes, a batch of lines at a time", () => {
  it("reads a file of several 64 KiB chunks whole, characters of several bytes included, in batches of the size asked", () => {
    // 2,000 lines of about 90 bytes: three chunks; each reference has a two-byte and a four-byte character.
    const references = Array.from({ length: 2000 }, (_, n) => `é-${n}-😀`)
    const bytes = new TextEncoder().encode(`\uFEFF${HEADER}\r\n${references.map(line).join("\r\n")}`)
    const { sizes, references: read, summary } = readAll(bytes, 700)
    assert.deepStrictEqual(sizes, [700, 700, 600])
    assert.deepStrictEqual(read, references)
    assert.deepStrictEqual(summary, { lines: 2000, errors: [], moreErrors: 0 })
  })

  it("reports the physical line of a byte that is not UTF-8, with the problems of the lines before it", () => {
    const good = new TextEncoder().encode(`${HEADER}\n${line("a")}\n${line("b")}\nbad,line\n`)
    const bytes = Uint8Array.from([...good, ...new TextEncoder().encode("x,"), 0xc3, 0x28, 0x0a, ...good])
    const { references, summary } = readAll(bytes, 10)
    assert.deepStrictEqual(references, ["a", "b"])
    assert.deepStrictEqual(
      summary.errors.map((error) => [
        error.line,
        error.message.startsWith("expected 8 fields") ? "fields" : error.message
      ]),
      [
        [4, "fields"],
        [5, "not UTF-8 text"]
      ]
    )
  })
})
