/**
 * An incremental RFC 4180 reader for the provider's settlement report (CONTRACT §7): text goes in
 * as chunks of any size (a request body as it arrives), records come out as soon as their line
 * ends, so memory holds one record at a time, never the file.
 *
 * What it accepts: fields separated by commas, records ended by LF or CRLF (the last one may end
 * at the end of the file), fields quoted with `"` that may hold commas, line ends and `""` for a
 * quote, a leading byte-order mark (dropped). Empty lines are skipped. What it refuses, each as a
 * record's error with the line it started on: a quote inside an unquoted field, anything but a
 * comma or a line end after a closing quote, a carriage return not followed by a line feed, a NUL,
 * a field longer than `maxFieldLength`, and a quote still open at the end of the file. After an
 * error the rest of that line is skipped and reading goes on at the next one, so one bad line
 * does not hide the others.
 */

/** One record: its fields, or why it cannot be read; `line` is the 1-based line it starts on. */
export type CsvRecord =
  | { readonly _tag: "Fields"; readonly line: number; readonly fields: ReadonlyArray<string> }
  | { readonly _tag: "Malformed"; readonly line: number; readonly field: number; readonly message: string }

export interface CsvReader {
  /** Reads `chunk`; returns the records it completed. */
  readonly feed: (chunk: string) => ReadonlyArray<CsvRecord>
  /** Ends the input; returns the last record, if the file did not end with a line end. */
  readonly end: () => ReadonlyArray<CsvRecord>
}

type State =
  /** At the start of a field, nothing read yet. */
  | "fieldStart"
  /** Inside an unquoted field. */
  | "unquoted"
  /** Inside a quoted field. */
  | "quoted"
  /** Just read a quote inside a quoted field: the field's end, or the first half of `""`. */
  | "quoteInQuoted"
  /** Just read a CR outside quotes: an LF must follow. */
  | "carriageReturn"
  /** The record is refused: skipping to the end of its line. */
  | "skipping"

// The characters that end a plain run of text in each kind of field (NUL among them, to refuse it).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching NUL is the point
const unquotedSpecial = /[",\r\n\u0000]/g
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching NUL is the point
const quotedSpecial = /["\u0000]/g

/** The index of the next character `special` matches in `text` from `from`, or the text's length. */
const nextOf = (special: RegExp, text: string, from: number): number => {
  special.lastIndex = from
  return special.exec(text)?.index ?? text.length
}

export const makeCsvReader = (options: { readonly maxFieldLength: number }): CsvReader => {
  let state: State = "fieldStart"
  let line = 1
  let recordLine = 1
  let fields: Array<string> = []
  let field = ""
  let started = false
  let error: { readonly field: number; readonly message: string } | undefined
  let crEndedBlankLine = false
  let out: Array<CsvRecord> = []

  // Field numbers are 1-based: the field being read is the one after those already ended.
  const fail = (message: string, field = fields.length + 1) => {
    error = { field, message }
    state = "skipping"
  }

  const append = (text: string) => {
    if (field.length + text.length > options.maxFieldLength) {
      fail(`a field may have at most ${options.maxFieldLength} characters`)
    } else {
      field += text
    }
  }

  const endField = () => {
    fields.push(field)
    field = ""
  }

  // A line end read where a record would start: the line was empty (a quoted "" is not).
  const atBlankLine = () => state === "fieldStart" && fields.length === 0

  // The record's line has ended (its LF read): emit it, unless the line was empty.
  const endRecord = (blank: boolean) => {
    if (error !== undefined) {
      out.push({ _tag: "Malformed", line: recordLine, field: error.field, message: error.message })
    } else if (!blank) {
      out.push({ _tag: "Fields", line: recordLine, fields })
    }
    fields = []
    field = ""
    error = undefined
    state = "fieldStart"
    recordLine = line + 1
  }

  const feed = (chunk: string): ReadonlyArray<CsvRecord> => {
    let text = chunk
    if (!started) {
      started = text.length > 0
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    // Plain runs of an unquoted or quoted field are appended as slices rather than character by
    // character: a report is mostly such runs.
    let at = 0
    while (at < text.length) {
      const char = text[at] as string
      switch (state) {
        case "skipping":
          if (char === "\n") {
            endRecord(false)
            line++
          }
          at++
          break
        case "carriageReturn":
          if (char === "\n") {
            endRecord(crEndedBlankLine)
            line++
            at++
          } else {
            // The CR ended the field before it.
            fail("a carriage return must be followed by a line feed", fields.length)
          }
          break
        case "fieldStart":
        case "unquoted": {
          if (char === '"') {
            if (state === "fieldStart") {
              state = "quoted"
              at++
            } else {
              fail('a quote inside an unquoted field (quote the whole field and double the quote: "")')
            }
            break
          }
          if (char === ",") {
            endField()
            state = "fieldStart"
            at++
            break
          }
          if (char === "\n") {
            const blank = atBlankLine()
            endField()
            endRecord(blank)
            line++
            at++
            break
          }
          if (char === "\r") {
            crEndedBlankLine = atBlankLine()
            endField()
            state = "carriageReturn"
            at++
            break
          }
          if (char === "\u0000") {
            fail("a NUL character")
            break
          }
          const stop = nextOf(unquotedSpecial, text, at + 1)
          append(text.slice(at, stop))
          // append() may have refused the field (too long): the state it set stands.
          if (error === undefined) state = "unquoted"
          at = stop
          break
        }
        case "quoted": {
          if (char === '"') {
            state = "quoteInQuoted"
            at++
            break
          }
          if (char === "\u0000") {
            fail("a NUL character")
            break
          }
          const stop = nextOf(quotedSpecial, text, at + 1)
          const run = text.slice(at, stop)
          // A line end inside quotes is part of the field, but still a line of the file.
          for (let index = run.indexOf("\n"); index !== -1; index = run.indexOf("\n", index + 1)) line++
          append(run)
          at = stop
          break
        }
        case "quoteInQuoted":
          if (char === '"') {
            append('"')
            state = "quoted"
            at++
          } else if (char === "," || char === "\n" || char === "\r") {
            state = "unquoted"
            // The closing quote ended the field's text: the separator is read as after any field.
          } else {
            fail("only a comma or a line end may follow a closing quote")
          }
          break
      }
    }
    const completed = out
    out = []
    return completed
  }

  const end = (): ReadonlyArray<CsvRecord> => {
    if (state === "quoted") fail("a quoted field is not closed before the end of the file")
    // The file ended where a record would start (after a line end, or empty): nothing is left.
    if (atBlankLine() && error === undefined) return []
    // After a CR the field was already ended; after an error there is no field to end.
    const blank = state === "carriageReturn" && crEndedBlankLine
    if (state !== "skipping" && state !== "carriageReturn") endField()
    endRecord(blank)
    const completed = out
    out = []
    return completed
  }

  return { feed, end }
}
