import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { type CsvRecord, makeCsvReader } from "../../src/reconciliation/CsvReader.ts"

/** Every record of `text` read in the given chunks (the whole text at once when none are given). */
const read = (text: string, cuts: ReadonlyArray<number> = [], maxFieldLength = 1024): Array<CsvRecord> => {
  const reader = makeCsvReader({ maxFieldLength })
  const records: Array<CsvRecord> = []
  let from = 0
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    records.push(...reader.feed(text.slice(from, cut)))
    from = cut
  }
  records.push(...reader.feed(text.slice(from)), ...reader.end())
  return records
}

const fields = (line: number, ...values: Array<string>): CsvRecord => ({ _tag: "Fields", line, fields: values })

describe("CsvReader", () => {
  it("reads LF and CRLF line ends, a last line without one, and skips empty lines", () => {
    assert.deepStrictEqual(read("a,b\nc,d\r\n\ne,f"), [fields(1, "a", "b"), fields(2, "c", "d"), fields(4, "e", "f")])
    assert.deepStrictEqual(read("a,b\r\n"), [fields(1, "a", "b")])
    assert.deepStrictEqual(read(""), [])
  })

  it("drops a leading byte-order mark, and only a leading one", () => {
    assert.deepStrictEqual(read("\uFEFFa,\uFEFF\n"), [fields(1, "a", "\uFEFF")])
  })

  it("keeps commas, line ends and doubled quotes inside quoted fields, counting their lines", () => {
    assert.deepStrictEqual(read('"a,1","say ""hi""\nthere",""\nnext,x'), [
      fields(1, "a,1", 'say "hi"\nthere', ""),
      fields(3, "next", "x")
    ])
  })

  it("keeps empty fields, leading and trailing ones too", () => {
    assert.deepStrictEqual(read(",a,\n,,"), [fields(1, "", "a", ""), fields(2, "", "", "")])
  })

  it("refuses, line by line, what RFC 4180 does not allow, and goes on at the next line", () => {
    const records = read('ok,1\na"b,2\n"x"y,3\nc\rd\nnul\u0000,4\n"open,5\n')
    assert.deepStrictEqual(
      records.map((record) =>
        record._tag === "Fields" ? `${record.line} ok` : `${record.line}:${record.field} ${record.message}`
      ),
      [
        "1 ok",
        '2:1 a quote inside an unquoted field (quote the whole field and double the quote: "")',
        "3:1 only a comma or a line end may follow a closing quote",
        "4:1 a carriage return must be followed by a line feed",
        "5:1 a NUL character",
        "6:1 a quoted field is not closed before the end of the file"
      ]
    )
  })

  it("refuses a field longer than the limit without keeping it, and names the field", () => {
    const records = read(`a,${"x".repeat(50)}\nb,c`, [], 10)
    assert.deepStrictEqual(records[0], {
      _tag: "Malformed",
      line: 1,
      field: 2,
      message: "a field may have at most 10 characters"
    })
    assert.deepStrictEqual(records[1], fields(2, "b", "c"))
  })

  it("reads any RFC 4180 encoding of any records the same, however the text is cut into chunks", () => {
    const value = fc.string({
      unit: fc.constantFrom("a", "Z", "1", " ", ",", '"', "\n", "\r\n", "é", "₦", "😀"),
      maxLength: 12
    })
    const quote = (text: string, force: boolean) =>
      force || /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
    fc.assert(
      fc.property(
        fc.array(fc.array(value, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 6 }),
        (rows, crlf, quoteAll, cuts) => {
          // A record of one empty field is an empty line, which the reader skips: quote it.
          const lines = rows.map((row) => row.map((text) => quote(text, quoteAll || row.length === 1)).join(","))
          const text = lines.join(crlf ? "\r\n" : "\n")
          const chunked = read(
            text,
            cuts.map((cut) => cut % (text.length + 1))
          ).map((record) => (record._tag === "Fields" ? record.fields : record))
          assert.deepStrictEqual(chunked, rows)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("gives the same records for every chunking of a text", () => {
    const text = '\uFEFFref,"a ""b""\r\nc",x\r\n\r\nr2,"",y\nbad"q,1\nlast,2'
    const whole = read(text)
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: text.length }), { maxLength: 8 }), (cuts) => {
        assert.deepStrictEqual(read(text, cuts), whole)
      }),
      { numRuns: 300 }
    )
  })
})
