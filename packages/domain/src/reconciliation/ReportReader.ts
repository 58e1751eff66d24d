import { Result } from "effect"
import { makeCsvReader } from "./CsvReader.ts"
import { MAX_FIELD_LENGTH, MAX_REPORT_LINES, MAX_REPORTED_ERRORS } from "./Model.ts"
import { type LineError, type ReportHeader, type ReportLine, readHeader, readLine } from "./ReportLine.ts"

/**
 * The whole report, read as it arrives: each `feed` returns the lines it completed, for the caller
 * to store a batch at a time, and every problem is kept (the first `MAX_REPORTED_ERRORS`) for the
 * 400 that refuses the file. A caller stores nothing for good until `end` says the file had none.
 */
export interface ReportReader {
  readonly feed: (chunk: string) => ReadonlyArray<ReportLine>
  readonly end: () => ReportEnd
}

export interface ReportSummary {
  /** Lines read (the header not counted), good or bad. */
  readonly lines: number
  /** The first problems, in file order; empty when the report can be imported. */
  readonly errors: ReadonlyArray<LineError>
  /** Problems beyond those listed. */
  readonly moreErrors: number
}

/** The summary, and the lines the end of the file completed (a last line with no line end). */
export interface ReportEnd extends ReportSummary {
  readonly last: ReadonlyArray<ReportLine>
}

export const makeReportReader = (): ReportReader => {
  const csv = makeCsvReader({ maxFieldLength: MAX_FIELD_LENGTH })
  let header: ReportHeader | undefined
  let headerSeen = false
  let lines = 0
  const errors: Array<LineError> = []
  let moreErrors = 0

  const problem = (error: LineError) => {
    if (errors.length < MAX_REPORTED_ERRORS) errors.push(error)
    else moreErrors++
  }

  const take = (records: ReturnType<typeof csv.feed>): ReadonlyArray<ReportLine> => {
    const read: Array<ReportLine> = []
    for (const record of records) {
      if (!headerSeen) {
        headerSeen = true
        if (record._tag === "Malformed") {
          problem({ line: record.line, column: null, message: record.message })
          continue
        }
        const parsed = readHeader(record.fields)
        if (Result.isFailure(parsed)) parsed.failure.forEach(problem)
        else header = parsed.success
        continue
      }
      lines++
      if (lines === MAX_REPORT_LINES + 1) {
        problem({ line: record.line, column: null, message: `a report may have at most ${MAX_REPORT_LINES} lines` })
      }
      if (lines > MAX_REPORT_LINES) continue
      if (record._tag === "Malformed") {
        problem({
          line: record.line,
          column: header === undefined ? null : columnName(header, record.field),
          message: record.message
        })
        continue
      }
      // Without a usable header no line can be read; the header's problems say why.
      if (header === undefined) continue
      const line = readLine(header, record.line, record.fields)
      if (Result.isFailure(line)) line.failure.forEach(problem)
      else read.push(line.success)
    }
    return read
  }

  return {
    feed: (chunk) => take(csv.feed(chunk)),
    end: () => {
      const last = take(csv.end())
      if (!headerSeen) problem({ line: 1, column: null, message: "the report is empty: a header line is required" })
      return { lines, errors, moreErrors, last }
    }
  }
}

/** The name of the column at 1-based `field`, when the header names it; null otherwise. */
const columnName = (header: ReportHeader, field: number): string | null => {
  for (const [name, index] of header) if (index === field - 1) return name
  return null
}
